"""The ``neardup`` command.

Each module of this package defines ``COMMANDS`` (a list of click commands or groups) and is
named in ``COMMAND_MODULES``; a module is imported only when one of its commands runs (or for
``neardup --help``), so ``neardup --version`` and a command's start do not pay for the others'
imports. A test checks the table against the modules. Errors: bad input, specs and options exit
with code 2, other failures with 1; a message, never a traceback.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

import click

from neardup._logs import quiet_third_party_logs
from neardup._version import __version__
from neardup.cli import _numba_startup
from neardup.errors import ConfigurationError, InputError, NeardupError, SpecError

USAGE_ERRORS = (InputError, SpecError, ConfigurationError)


#: Every command of ``neardup``: its name → the module of ``neardup.cli`` that defines it.
COMMAND_MODULES: dict[str, str] = {
    "analyze": "compare",
    "bloom": "bloom",
    "collisions": "collisions",
    "compare": "compare",
    "dedup": "dedup",
    "eval": "eval",
    "index": "index",
    "matrix": "matrix",
    "params": "sketch",
    "serve": "serve",
    "sign": "sketch",
}


class LazyGroup(click.Group):
    """A group whose commands are imported from their modules when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMAND_MODULES) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            module = importlib.import_module(f"neardup.cli.{COMMAND_MODULES[cmd_name]}")
            for command in getattr(module, "COMMANDS", ()):
                self.add_command(command)
        return self.commands.get(cmd_name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="neardup")
def cli() -> None:
    """neardup — find near-duplicate and reused text (Russian first, English as well).

    Texts are canonicalized (HTML stripped, NFKC, lowercase, ё→е, stop words and function
    words dropped, lemmas), cut into word shingles and hashed into fingerprints; documents are
    compared by the share of fingerprints they have in common. `neardup COMMAND --help` tells
    more of each command.
    """


#: One-shot commands that only read their inputs and print (or write a file they close): run
#: as the ``neardup`` program, their process ends once the output is flushed, without the
#: interpreter's teardown — freeing numba's and LLVM's objects one by one costs about a third
#: of a short ``compare``'s CPU time (benchmarks/startup.py). They do no dense linear algebra
#: either, so numpy's OpenBLAS starts no pool of threads for them (~35 ms of CPU at import;
#: an ``OPENBLAS_NUM_THREADS`` already set is kept). And they run without the cyclic garbage
#: collector: its passes over the ~100,000 objects that importing numpy and numba creates are
#: ~35 ms of a short ``compare``, while the command's own work makes no reference cycles that
#: grow with its input (the text goes through kernels, not Python objects per token) and the
#: process ends with its answer.
FAST_EXIT_COMMANDS = frozenset({"compare", "analyze"})


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code, mapping neardup's errors to 2 or 1. Called with
    no ``argv`` (the ``neardup`` program itself), a command of :data:`FAST_EXIT_COMMANDS`
    ends the process here."""
    one_shot = argv is None and _first_command(sys.argv[1:]) in FAST_EXIT_COMMANDS
    if one_shot:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        gc.disable()
    code = _run(argv)
    if one_shot:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more can be said
                pass
        os._exit(code)
    return code


def _first_command(args: list[str]) -> str | None:
    return next((arg for arg in args if not arg.startswith("-")), None)


def _run(argv: list[str] | None) -> int:
    _numba_startup.install()
    quiet_third_party_logs()
    # the CLI's words (neardup.cli.messages) are imported only when a message is printed here
    # (``neardup --version`` imports no command module: a test checks)
    try:
        cli.main(args=argv, prog_name="neardup", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo(_say("aborted"), err=True)
        return 1
    except click.ClickException as exc:
        _show_click_error(exc)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except USAGE_ERRORS as exc:
        click.echo(_error(exc), err=True)
        return 2
    except NeardupError as exc:
        click.echo(_error(exc), err=True)
        return 1
    except KeyboardInterrupt:
        click.echo(_say("interrupted"), err=True)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file or folder the system refused that no check above foresaw
        click.echo(_os_error(exc), err=True)
        return 1
    except MemoryError:
        click.echo(_say("out_of_memory"), err=True)
        return 1
    return 0


def _say(key: str, **values: object) -> str:
    from neardup.cli.messages import say

    return say(key, **values)


def _show_click_error(exc: click.ClickException) -> None:
    from neardup.cli.messages import language
    from neardup.cli.usage import show

    show(exc, language())


def _os_error(exc: OSError) -> str:
    what = exc.filename if exc.filename is not None else "neardup"
    return _say("os_error", what=what, reason=exc.strerror or type(exc).__name__)


def _error(exc: BaseException) -> str:
    from neardup.cli.messages import error_message

    return error_message(exc)


if __name__ == "__main__":
    sys.exit(main())
