"""Which reader a log needs, and one reader per tool's own log format.

:mod:`~noisefloor.logs.formats.detect` names the formats (:data:`FORMATS`), tells a file's
format from its name and content (:func:`detect_format`) and expands folders into log files;
:mod:`~noisefloor.logs.formats.files` refuses anything but a regular file before it is opened.
Each other module maps one tool's layout to :class:`~noisefloor.logs.schema.TrialRecord` fields
and yields :class:`~noisefloor.logs.jsonl.RecordBlock` objects to the shared pipeline: the
noise-floor paper's per-protocol JSONL (:mod:`~noisefloor.logs.formats.paper`), tau2-bench runs
(:mod:`~noisefloor.logs.formats.tau2`), tau-bench v1 lists
(:mod:`~noisefloor.logs.formats.taubench`), inspect_ai eval logs
(:mod:`~noisefloor.logs.formats.inspect`), Terminal-Bench runs
(:mod:`~noisefloor.logs.formats.terminalbench`) and Harbor jobs
(:mod:`~noisefloor.logs.formats.harbor`). :func:`noisefloor.logs.load_trials` picks the reader.
The names below are imported on first use.
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.formats.detect import (
        FORMATS,
        LOG_SUFFIXES,
        describe_file,
        detect_format,
        expand_paths,
        walk_paths,
    )
    from noisefloor.logs.formats.files import describe_mode, regular_file_problem, stat_problem
    from noisefloor.logs.formats.harbor import (
        HARBOR_TRIAL_KEYS,
        harbor_kind,
        is_harbor_trial,
        iter_harbor_blocks,
        map_trial,
    )
    from noisefloor.logs.formats.inspect import (
        MANIFEST_NAMES,
        MAX_MEMBER_BYTES,
        ZIP_MAGIC,
        inspect_manifest,
        is_inspect_document,
        iter_inspect_blocks,
        value_to_float,
    )
    from noisefloor.logs.formats.paper import (
        HARNESS_ERROR_PREFIX,
        PAPER_FILE_NAME,
        iter_paper_blocks,
    )
    from noisefloor.logs.formats.tau2 import (
        is_tau2_dir_layout,
        iter_tau2_blocks,
        load_document,
        tail_problem,
        tau2_paths,
    )
    from noisefloor.logs.formats.taubench import (
        AGENT_STRATEGIES,
        TAU_BENCH_DOMAINS,
        USER_STRATEGIES,
        domain_from_trajectory,
        iter_taubench_blocks,
        labels_from_filename,
        run_labels_from_filename,
    )
    from noisefloor.logs.formats.terminalbench import (
        is_terminal_bench_run,
        is_terminal_bench_trial,
        iter_terminal_bench_blocks,
        looks_like_terminal_bench,
        looks_like_terminal_bench_trial,
        published_figures,
        split_trial_name,
    )

#: Public name -> the module of this package that defines it (imported on first use).
_HOMES = {
    "AGENT_STRATEGIES": "taubench",
    "FORMATS": "detect",
    "HARBOR_TRIAL_KEYS": "harbor",
    "HARNESS_ERROR_PREFIX": "paper",
    "LOG_SUFFIXES": "detect",
    "MANIFEST_NAMES": "inspect",
    "MAX_MEMBER_BYTES": "inspect",
    "PAPER_FILE_NAME": "paper",
    "TAU_BENCH_DOMAINS": "taubench",
    "USER_STRATEGIES": "taubench",
    "ZIP_MAGIC": "inspect",
    "describe_file": "detect",
    "describe_mode": "files",
    "detect_format": "detect",
    "domain_from_trajectory": "taubench",
    "expand_paths": "detect",
    "harbor_kind": "harbor",
    "inspect_manifest": "inspect",
    "is_harbor_trial": "harbor",
    "is_inspect_document": "inspect",
    "is_tau2_dir_layout": "tau2",
    "is_terminal_bench_run": "terminalbench",
    "is_terminal_bench_trial": "terminalbench",
    "iter_harbor_blocks": "harbor",
    "iter_inspect_blocks": "inspect",
    "iter_paper_blocks": "paper",
    "iter_tau2_blocks": "tau2",
    "iter_taubench_blocks": "taubench",
    "iter_terminal_bench_blocks": "terminalbench",
    "labels_from_filename": "taubench",
    "load_document": "tau2",
    "looks_like_terminal_bench": "terminalbench",
    "looks_like_terminal_bench_trial": "terminalbench",
    "map_trial": "harbor",
    "published_figures": "terminalbench",
    "regular_file_problem": "files",
    "run_labels_from_filename": "taubench",
    "split_trial_name": "terminalbench",
    "stat_problem": "files",
    "tail_problem": "tau2",
    "tau2_paths": "tau2",
    "value_to_float": "inspect",
    "walk_paths": "detect",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "AGENT_STRATEGIES",
    "FORMATS",
    "HARBOR_TRIAL_KEYS",
    "HARNESS_ERROR_PREFIX",
    "LOG_SUFFIXES",
    "MANIFEST_NAMES",
    "MAX_MEMBER_BYTES",
    "PAPER_FILE_NAME",
    "TAU_BENCH_DOMAINS",
    "USER_STRATEGIES",
    "ZIP_MAGIC",
    "describe_file",
    "describe_mode",
    "detect_format",
    "domain_from_trajectory",
    "expand_paths",
    "harbor_kind",
    "inspect_manifest",
    "is_harbor_trial",
    "is_inspect_document",
    "is_tau2_dir_layout",
    "is_terminal_bench_run",
    "is_terminal_bench_trial",
    "iter_harbor_blocks",
    "iter_inspect_blocks",
    "iter_paper_blocks",
    "iter_tau2_blocks",
    "iter_taubench_blocks",
    "iter_terminal_bench_blocks",
    "labels_from_filename",
    "load_document",
    "looks_like_terminal_bench",
    "looks_like_terminal_bench_trial",
    "map_trial",
    "published_figures",
    "regular_file_problem",
    "run_labels_from_filename",
    "split_trial_name",
    "stat_problem",
    "tail_problem",
    "tau2_paths",
    "value_to_float",
    "walk_paths",
]
