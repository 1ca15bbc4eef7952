"""The evolved-preference bot and the genetic algorithm that makes it.

genome    the strategy: preference weights, mutation, crossover
sampling  drawing a move from weights normalised over the offered options
bot       the policy a genome plays and the bot executable
ga        fitness by elimination tournaments, selection, the generation loop
store     runs stored by key in the user data directory
cli       the `evolve` command (run, show, plot)
"""
