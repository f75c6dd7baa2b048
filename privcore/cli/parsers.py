"""The parser of ``python -m privcore``: exit codes, parser class and every sub-command's options.

The parser class exits 2 on a usage error; options come from ``add_<name>_parser``. Nothing heavier than argparse, so
``--help`` and a usage error cost no more than this module; :mod:`privcore.cli.main` imports the sub-command that runs
only then.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are bad input (exit 2), like every other bad input.

    Parameters
    ----------
    *args, **kwargs
        As for :class:`argparse.ArgumentParser`.
    add_options : callable, optional
        ``add_options(parser)`` adds the parser's options; it is called the first time the parser parses
        or formats its usage or help, not when it is built. A sub-command whose options need heavy imports
        (``lab`` reads its defaults from the generators and the lab) then costs nothing when another
        sub-command runs.
    """

    def __init__(self, *args, add_options: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._add_options = add_options

    def _complete(self) -> None:
        if self._add_options is not None:
            add, self._add_options = self._add_options, None
            add(self)

    def parse_known_args(self, args=None, namespace=None):  # argparse parses a sub-command through this
        """Add the options first if not done yet, then parse as :class:`argparse.ArgumentParser` does."""
        self._complete()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        """The usage text, after adding the options if not done yet."""
        self._complete()
        return super().format_usage()

    def format_help(self) -> str:
        """The help text, after adding the options if not done yet."""
        self._complete()
        return super().format_help()

    def error(self, message: str) -> None:  # argparse's own usage errors are bad input too
        """Print the usage and ``message`` to standard error and exit with the bad-input status (2)."""
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def add_type_flags(parser: argparse.ArgumentParser) -> None:
    """The column-type and role options shared by ``evaluate`` and ``audit``."""
    parser.add_argument("--numerical", help="comma-separated numerical columns (others are inferred)")
    parser.add_argument("--categorical", help="comma-separated categorical columns")
    parser.add_argument("--binary", help="comma-separated binary columns")
    parser.add_argument("--date", help="comma-separated date columns (read as days: ISO 8601 or a common format)")
    parser.add_argument("--identifier", help="comma-separated identifier columns (names, e-mail, phone or id "
                                             "numbers): checked for members' values copied, not compared by distance")
    parser.add_argument("--text", help="comma-separated free-text columns: checked for members' rare strings "
                                       "copied, not compared by distance")
    parser.add_argument("--exclude", help="comma-separated columns to leave out")
    parser.add_argument("--key", help="comma-separated key (quasi-identifier) columns; default all but the sensitive one")
    parser.add_argument("--sensitive", help="the sensitive column")
    parser.add_argument("--missing", choices=("drop", "impute"), default="drop", help="missing numerical values")


def add_evaluate_parser(sub) -> None:
    """The ``evaluate`` sub-command's options.

    Notes
    -----
    The ``--seed``, ``--workers``, ``--device``, ``--dask`` and the ``--json``/``--html`` output paths are checked
    before any table is read, and a report that cannot be written is bad input too (exit 2, naming the path).
    ``--param ID.NAME=VALUE`` (repeatable) sets a metric parameter; VALUE is read as JSON when it parses
    (``0.1``, ``[["age", "sex"], ["race"]]``) and as plain text otherwise.
    """
    ev = sub.add_parser("evaluate", help="score a synthetic table against the real one")
    ev.add_argument("--real", action="append", help="real (training) table: CSV, Parquet or Excel; for related "
                    "tables NAME=PATH, once per table, with --relation")
    ev.add_argument("--synthetic", action="append", help="synthetic table (NAME=PATH per table for related tables)")
    ev.add_argument("--holdout", action="append", help="optional holdout: real records not used for training "
                    "(NAME=PATH per table for related tables)")
    ev.add_argument("--relation", action="append", default=[], metavar="CHILD.COLUMN=PARENT.COLUMN",
                    help="related tables: the child table's column naming a row of the people table, e.g. "
                    "visits.patient_id=patients.id (repeatable, one per child table); the tables are then "
                    "evaluated per person, each person's rows summarised")
    ev.add_argument("--order", action="append", default=[], metavar="CHILD.COLUMN",
                    help="a child table's column that orders each person's rows (a year, a date): a sequence")
    ev.add_argument("--reference", action="append", help="optional reference table of real people outside training "
                    "and holdout: every membership attack that can use one (mia_best and mia_stacked too) compares "
                    "with it instead of with half of the holdout, as in the dashboard (NAME=PATH per table for "
                    "related tables)")
    ev.add_argument("--demo", metavar="NAME", help="use a built-in demo scenario instead of files")
    add_type_flags(ev)
    ev.add_argument("--pairing", help="'row' (same row order) or an id column present in both tables")
    ev.add_argument("--metrics", default="all", help="'all', a preset name, or comma-separated metric ids "
                    "('quick' includes the membership attacks when --holdout is given)")
    ev.add_argument("--param", action="append", default=[], metavar="ID.NAME=VALUE",
                    help="set a metric parameter, e.g. cvp.threshold=0.1 or "
                    "'linkability.aux_cols=[[\"age\",\"sex\"],[\"race\"]]'; VALUE is read as JSON when it "
                    "parses, else as text; repeatable ('python -m privcore metrics' lists the parameters)")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--dp-epsilon", metavar="EPSILON",
                    help="the ε of a differential-privacy guarantee the generator is declared to give: the answer "
                         "shows the bound it places on any membership attack and flags an attack beyond it")
    ev.add_argument("--famd-components", type=int, metavar="K",
                    help="axes of the FAMD projection used by dcr, nndr, hidr (default min(5, r))")
    # Read as text and checked in _evaluate, so that a bad value gets one line (argparse adds its usage).
    ev.add_argument("--workers", metavar="N",
                    help="threads for the neighbour passes and the classifiers' folds, a whole number >= 1 "
                    "(default: every usable core); the report does not depend on it")
    ev.add_argument("--dask", metavar="ADDRESS",
                    help="compute the neighbour passes and the classifiers' fits on a Dask cluster: tcp://host:8786, "
                    "or local:N for N worker "
                    "processes on this machine (needs pip install 'privcore[dask]'); the report does not change")
    ev.add_argument("--device", metavar="{auto,cpu,gpu}", default="auto",
                    help="where the neighbour passes run: gpu needs pip install 'privcore[gpu]' and an NVIDIA GPU; "
                    "auto (default) uses a GPU only when one is usable and the tables are large; the report does "
                    "not change")
    ev.add_argument("--json", metavar="OUT.json", help="write the JSON report here (default: stdout)")
    ev.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    ev.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_metrics_and_schema_parsers(sub) -> None:
    """The ``metrics`` and ``schema`` sub-commands (no options)."""
    sub.add_parser("metrics", help="list metric ids with one-line descriptions and their parameters")
    sub.add_parser("schema", help="print the JSON Schema of the report that evaluate --json writes")


def add_audit_parser(sub) -> None:
    """Register the ``audit`` subcommand.

    Notes
    -----
    Usage::

        python -m privcore audit --real R.csv [type flags as in evaluate] --generator NAME|MODULE:ATTR
            [--generator-param KEY=VALUE ...] [--targets 5] [--random-targets 5] [--shadow-models 50]
            [--eval-models 20] [--training-rows M] [--seed 0] [--json OUT.json] [--html OUT.html]
        python -m privcore audit --real R.csv --generator NAME --design shared [--models 64] [--records 1000]
            [--workers N | --dask ADDRESS] [--whitebox auto|on|off] [--stronger on|off] [--seed 0] [--json OUT.json]
            [--html OUT.html]
        python -m privcore audit --list-generators

    ``--generator MODULE:ATTR`` audits your own generator: ATTR is a class or factory (called once per fit, with
    the ``--generator-param`` settings as keyword arguments) or an object with ``fit`` and ``sample``
    (:mod:`privcore.generators.outside`); MODULE must be importable (on ``PYTHONPATH``).

    ``--design targeted`` (the default) attacks a few targets with shadow models of their own
    (:mod:`privcore.audit.targeted`); ``--design shared`` attacks every record of a pool with one set of models,
    each trained on a random half of it (:mod:`privcore.audit.shared`); its fits run in this process, on ``--workers``
    processes, or as tasks on a Dask cluster (``--dask tcp://host:8786`` or ``local:N``, as for ``evaluate``).
    Beside its attack it runs RMIA and a gradient-boosted meta-classifier (:mod:`privcore.audit.stronger`;
    ``--stronger off`` skips them), reported in the JSON's ``stronger`` and in the HTML's table of attacks.

    Exit codes as for ``evaluate``: 0 success, 2 bad input or settings (a reference that cannot be imported or is
    no generator included), 1 internal error.
    """
    au = sub.add_parser("audit", help="shadow-model membership audit of a generator (per-target AUC)")
    au.add_argument("--real", help="the real table: CSV, Parquet or Excel")
    au.add_argument("--demo", metavar="NAME", help="use the real table of a built-in demo scenario instead")
    add_type_flags(au)
    au.add_argument("--generator", metavar="NAME|MODULE:ATTR",
                    help="a built-in generator ('--list-generators' lists them), or your own: MODULE:ATTR names a "
                    "class or factory (called once per fit) or an object with fit and sample")
    au.add_argument("--generator-param", action="append", default=[], metavar="KEY=VALUE",
                    help="a generator setting, e.g. epsilon=1 for dp_marginals; VALUE is read as JSON when it "
                    "parses, else as text; repeatable")
    au.add_argument("--list-generators", action="store_true", help="list the built-in generators and their settings")
    au.add_argument("--targets", type=int, default=5, help="most vulnerable records attacked (default 5)")
    au.add_argument("--random-targets", type=int, default=5, help="random records attacked (default 5)")
    au.add_argument("--shadow-models", type=int, default=50,
                    help="shadow generators per side, with and without the target (default 50)")
    au.add_argument("--eval-models", type=int, default=20, help="evaluation generators, half with the target")
    au.add_argument("--training-rows", type=int, help="rows of each training set (default min(1000, half a split))")
    au.add_argument("--design", choices=("targeted", "shared"), default="targeted",
                    help="targeted (default): a few targets, shadow models of their own; shared: every record of a "
                    "pool at once, each model trained on a random half of the pool")
    au.add_argument("--models", type=int, default=64,
                    help="shared design: generators trained, each on a random half of the pool (default 64)")
    au.add_argument("--records", type=int,
                    help="shared design: records audited, drawn by the seed (default min(1000, rows)); the other "
                    "rows are the population")
    au.add_argument("--workers", type=int, default=1,
                    help="shared design: processes that fit the generators (default 1); results do not depend on it")
    au.add_argument("--dask", metavar="ADDRESS",
                    help="shared design: fit the generators as tasks on a Dask cluster: tcp://host:8786, or local:N "
                    "for N worker processes on this machine (needs pip install 'privcore[dask]'); not with --workers; "
                    "results do not depend on it")
    au.add_argument("--whitebox", choices=("auto", "on", "off"), default="auto",
                    help="shared design: also attack each trained model's per-record loss (a white-box attacker "
                    "who holds the model); auto (default): when the generator has a loss (tabddpm, or "
                    "per_record_loss on your own)")
    au.add_argument("--stronger", choices=("on", "off"), default="on",
                    help="shared design: also run RMIA and the gradient-boosted meta-classifier beside the attack "
                    "of the verdict (default on; off saves their time)")
    au.add_argument("--seed", type=int, default=0)
    au.add_argument("--json", metavar="OUT.json", help="write the JSON report here (default: stdout)")
    au.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    au.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_lab_parser(sub) -> None:
    """Register the ``lab`` subcommand; its options are added when it parses or shows its help.

    See :class:`Parser`. Their defaults come from the generators and the lab, which the other sub-commands do not need
    (they cost about 0.1 s at start-up).

    Notes
    -----
    Usage::

        python -m privcore lab --real R.csv [--holdout H.csv] [type flags as in evaluate]
            [--leaks partial_copy,noisy_copy,...] [--levels 0,0.25,0.5,0.75,1] [--seeds 3]
            [--metrics crp,dcr,...] [--param ID.NAME=VALUE ...] [--margin 0.01] [--seed 0]
            [--json OUT.json] [--html OUT.html] [--workers N] [--dask ADDRESS] [--no-utility]
        python -m privcore lab --demo NAME [--rows 3000] ...            (a demo's real table and holdout)
        python -m privcore lab --real R.csv [--holdout H.csv] --ladder 0.1=eps01.csv --ladder 1=eps1.csv ...
                                                                        (a supplied ladder: LABEL=FILE, repeatable)

    Beside the privacy metrics, every table is measured for utility (column shapes and column-pair trends, and any
    utility measure named in --metrics) for the privacy–utility frontier (:mod:`privcore.lab.frontier`); --no-utility
    leaves the cheap two out.

    Exit codes as for ``evaluate``: 0 success, 2 bad input or settings (one line on stderr), 1 internal error.
    Settings are checked before any table is read. See :mod:`privcore.lab` for what is computed.
    """
    sub.add_parser("lab", help="which metric notices which leak: metrics on a leak ladder from the real table",
                   add_options=_add_lab_options)


def _add_lab_options(lab: argparse.ArgumentParser) -> None:
    """The ``lab`` sub-command's options."""
    # lazy: the defaults come from the generators and the lab, which only `lab` (run, or its help) may load
    from privcore.generators import LADDER
    from privcore.lab import DEFAULT_LEVELS, DEFAULT_METRICS, DEFAULT_SEEDS  # lazy: as the line above

    lab.add_argument("--real", help="the real table: CSV, Parquet or Excel")
    lab.add_argument("--holdout", help="optional real records not in --real (split into the metrics' holdout and "
                     "fresh rows); without it both are split off --real")
    lab.add_argument("--demo", metavar="NAME", help="use a built-in demo scenario's real table and holdout")
    lab.add_argument("--rows", type=int, default=3000, help="rows of the demo's real table and holdout (--demo)")
    add_type_flags(lab)
    # ", " so that the help wraps between names, not inside one (seven names no longer fit on a line).
    lab.add_argument("--leaks", help=f"comma-separated leak types (default all: {', '.join(LADDER)})")
    lab.add_argument("--levels", help="comma-separated leak levels from 0 to 1 (default "
                     f"{','.join(f'{v:g}' for v in DEFAULT_LEVELS)}; 0 is always run)")
    lab.add_argument("--seeds", help=f"synthetic tables per leak type and level (default {DEFAULT_SEEDS})")
    lab.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                     help="'all', a preset name, or comma-separated metric ids (default: the 15 review metrics "
                     "without a classifier, both singling-out attacks, inference and mia_distance)")
    lab.add_argument("--param", action="append", default=[], metavar="ID.NAME=VALUE",
                     help="set a metric parameter, as for evaluate; repeatable")
    lab.add_argument("--margin", default="0.01", help="detection margin in risk units (default 0.01)")
    lab.add_argument("--ladder", action="append", default=[], metavar="LABEL=FILE",
                     help="a supplied ladder instead of the generated one: a synthetic table made from --real with "
                     "a numeric label (e.g. its ε); repeatable, a label may repeat; the smallest label is the "
                     "reference")
    lab.add_argument("--seed", type=int, default=0)
    lab.add_argument("--no-utility", action="store_true",
                     help="do not measure column shapes and column-pair trends on every table (the privacy-utility "
                     "frontier then rests only on the utility measures named in --metrics, if any)")
    lab.add_argument("--json", metavar="OUT.json", help="write the JSON report here (default: stdout)")
    lab.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML page")
    lab.add_argument("--quiet", action="store_true", help="no progress on stderr")
    lab.add_argument("--workers", metavar="N", help="processes that evaluate the synthetic tables (default: every "
                     "usable core, one per 4 tables); the result does not change")
    lab.add_argument("--dask", metavar="ADDRESS", help="evaluate the tables as tasks on a Dask cluster: "
                     "tcp://host:8786, or local:N for N worker processes on this machine (needs pip install "
                     "'privcore[dask]'); the result does not change")


def add_demo_parser(sub) -> None:
    """The ``demo`` sub-command's options."""
    demo = sub.add_parser("demo", help="list demo scenarios, or write one as CSV files")
    demo.add_argument("name", nargs="?", help="scenario to write")
    demo.add_argument("--out", default=".", help="folder for real.csv, synthetic.csv, holdout.csv")
    demo.add_argument("--rows", type=int, default=3000)
