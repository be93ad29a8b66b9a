"""The ``neardup`` command.

Each module of this package that defines ``COMMANDS`` (a list of click commands or groups)
adds them to the top-level group, so a new command is one new module. Errors: bad input,
specs and options exit with code 2, other failures with 1; a message, never a traceback.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from neardup import __version__
from neardup.errors import ConfigurationError, InputError, NeardupError, SpecError

USAGE_ERRORS = (InputError, SpecError, ConfigurationError)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="neardup")
def cli() -> None:
    """neardup — find near-duplicate and reused text (Russian first, English as well).

    Texts are canonicalized (HTML stripped, NFKC, lowercase, ё→е, stop words and function
    words dropped, lemmas), cut into word shingles and hashed into fingerprints; documents are
    compared by the share of fingerprints they have in common. `neardup COMMAND --help` tells
    more of each command.
    """


def _register() -> None:
    package = importlib.import_module("neardup.cli")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "main":
            continue
        module = importlib.import_module(f"neardup.cli.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            cli.add_command(command)


_register()


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code, mapping neardup's errors to 2 or 1."""
    try:
        cli.main(args=argv, prog_name="neardup", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except USAGE_ERRORS as exc:
        click.echo(f"Error: {exc}", err=True)
        return 2
    except NeardupError as exc:
        click.echo(f"Error: {exc}", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
