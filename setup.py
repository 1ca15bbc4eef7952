"""Build hook for the C rules engine and the bots' init program; all metadata lives in pyproject.toml."""
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

C_FLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-ffp-contract=off"]
# The search core (protocol/search/) shares the engine's state struct
# (protocol/engine.h) and is compiled into the same extension.
SEARCH_SOURCES = [f"protocol/search/{name}.c" for name in ("moves", "evaluation", "mcts", "alphabeta", "smab", "regret", "selfplay", "module")]


def source_digest() -> str:
    """The digest of the engine's sources (protocol/freshness.py, loaded by
    path: the package cannot be imported before its engine is built). The
    build records it, so that an import of a build older than the sources
    beside it warns instead of playing old rules."""
    spec = importlib.util.spec_from_file_location("freshness", os.path.join("protocol", "freshness.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.source_digest(os.path.abspath("protocol"))


class build_ext_and_botinit(build_ext):
    """Also build driver/botinit, the small program every bot runs under
    (driver/isolation.py): an executable, not an extension module, so that
    the init of each bot is a few hundred kilobytes of its own rather than
    a copy of the referee's Python process."""

    def build_extension(self, ext: Extension) -> None:
        """The extension's C files compiled side by side, one compiler per
        core: build_ext compiles them one after another, 2.6 s of CPU for
        the engine and the search core, paid by every install (CI's, the
        README's quick start in the suite, compile.sh's)."""
        compile_serially = self.compiler.compile

        def compile_side_by_side(sources: list, *args, **kwargs) -> list:
            if len(sources) < 2:
                return compile_serially(sources, *args, **kwargs)
            with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
                done = pool.map(lambda source: compile_serially([source], *args, **kwargs), sources)
                return [obj for objects in done for obj in objects]

        self.compiler.compile = compile_side_by_side
        try:
            super().build_extension(ext)
        finally:
            del self.compiler.compile  # the method again

    def run(self) -> None:
        super().run()
        target = "driver" if self.inplace else os.path.join(self.build_lib, "driver")
        built = os.path.join(target, "botinit")
        # Relinked only when its source is newer (as build_ext does for the
        # extension): linking replaces the file, and a bot started meanwhile
        # (compile.sh rebuilds in place while a tournament runs) finds no init.
        if not self.force and os.path.exists(built) and os.path.getmtime(built) >= os.path.getmtime("driver/botinit.c"):
            return
        objects = self.compiler.compile(["driver/botinit.c"], output_dir=self.build_temp, extra_postargs=C_FLAGS)
        self.compiler.link_executable(objects, "botinit", output_dir=target)


setup(
    ext_modules=[
        Extension(
            "protocol._engine",
            sources=["protocol/_engine.c", *SEARCH_SOURCES],
            depends=["protocol/engine.h", "protocol/search/search.h"],
            extra_compile_args=C_FLAGS,
            define_macros=[("SOURCE_DIGEST", f'"{source_digest()}"')],
            libraries=["m"],
        )
    ],
    cmdclass={"build_ext": build_ext_and_botinit},
)
