"""The command line's machinery, apart from its commands: one error style for every failure (click's own
usage errors included), ASCII-only integer options with bounds, choices read on first use, and the exact
command line a generated file records. Imports nothing heavy: ``llgen layout`` must start fast."""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Callable

import click

from llgen.core.errors import LlgenError, error_line, one_line

ARGV_KEY = "llgen.argv"


def fail(message: str) -> None:
    """Print ``error: <message>`` as one line on stderr and exit with status 2."""
    click.echo(f"error: {one_line(message) or 'bad input.'}", err=True)
    sys.exit(2)


def run(body: Callable[[], None]) -> None:
    """Run a command body; bad input becomes one line on stderr and exit status 2. Anything else is a bug in
    llgen: one line too, exit status 3 (LLGEN_TRACEBACK=1 shows the traceback)."""
    try:
        body()
    except LlgenError as e:
        fail(str(e))
    except RecursionError:
        fail("the input nests too deep to read.")
    except BrokenPipeError:
        raise  # the reader of stdout left (llgen emit | head): Group.main ends quietly
    except OSError as e:  # a path the system refuses (too long, no permission, ...): bad input too
        where = f" '{e.filename}'" if e.filename else ""
        fail(f"cannot use{where}: {e.strerror or e}.")
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, never a traceback
        if os.environ.get("LLGEN_TRACEBACK"):
            raise
        detail = error_line(e)
        click.echo(f"error: llgen failed ({detail}); this is a bug in llgen, please report the command.", err=True)
        sys.exit(3)


class Group(click.Group):
    """A click group whose usage errors (missing option, bad value, no such command) print the same one
    line ``error: ...`` as llgen's own errors, exit status 2; --help and --version work as usual."""

    def make_context(self, info_name, args, parent=None, **extra):
        argv = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta.setdefault(ARGV_KEY, argv)
        return ctx

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name or "llgen", complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help())
            sys.exit(0)
        except click.ClickException as e:
            fail(_usage_sentence(e))
        except click.Abort:
            click.echo("aborted.", err=True)
            sys.exit(130)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def _usage_sentence(e: click.ClickException) -> str:
    msg = one_line(e.format_message())
    msg = msg[:1].lower() + msg[1:] if msg[:2] != msg[:2].upper() else msg
    ctx = getattr(e, "ctx", None)
    if ctx is not None and isinstance(e, click.UsageError):
        msg = msg.rstrip(".") + f" (see '{ctx.command_path} --help')."
    return msg if msg.endswith(".") else msg + "."


def command_line(ctx: click.Context | None = None) -> str:
    """The command as the user typed it: ``llgen emit --src ... -o out/``."""
    ctx = ctx or click.get_current_context(silent=True)
    argv = ctx.meta.get(ARGV_KEY) if ctx is not None else None
    return "llgen " + shlex.join(sys.argv[1:] if argv is None else argv)


class Integer(click.ParamType):
    """An integer written in ASCII digits (click's INT takes any Unicode digit and underscores), within bounds."""

    name = "integer"

    def __init__(self, lo: int | None = None, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        elif isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,19}", value.strip()):
            n = int(value.strip())
        else:
            self.fail(f"'{value}' is not an integer in ASCII digits", param, ctx)
        if self.lo is not None and n < self.lo:
            self.fail(f"{n} is below {self.lo}", param, ctx)
        if self.hi is not None and n > self.hi:
            self.fail(f"{n} is over {self.hi}", param, ctx)
        return n


class LazyChoice(click.Choice):
    """A choice whose values are read on first use (e.g. the suites, from a module `llgen layout` never imports);
    ``aliases`` maps older names that are still accepted, but not listed, to the current ones."""

    def __init__(self, read: Callable[[], list[str]], aliases: Callable[[], dict[str, str]] | None = None):
        self._read, self._values, self._aliases = read, None, aliases
        super().__init__([])

    def convert(self, value, param, ctx):
        if self._aliases is not None and isinstance(value, str):
            value = self._aliases().get(value, value)
        return super().convert(value, param, ctx)

    @property
    def choices(self):
        if self._values is None:
            self._values = tuple(self._read())
        return self._values

    @choices.setter
    def choices(self, _value):
        pass
