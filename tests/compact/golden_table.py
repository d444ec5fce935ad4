"""The golden table: every corpus case a rule owns, whether the gate applies the rule's
proposal to it, and the least share the compacted text must save (its floor).

``GOLDEN[rule][case] = (applied, floor)``, ``rule`` a module of ``tersh.compaction.rules``.
Floors of the rules in ``FLOORS_IN_TOKENS`` count o200k tokens (the capture report's tokens
counted when the text changed); the others count UTF-8 bytes. test_golden.py checks each case.
"""

from __future__ import annotations

#: Rules whose floors count o200k tokens (the build, type-check and lint rules).
FLOORS_IN_TOKENS = frozenset(
    {
        "cargobuild",
        "cc",
        "eslint",
        "flake8",
        "java",
        "listing",
        "mypy",
        "pylint",
        "ruff",
        "search",
        "shellcheck",
        "tsc",
    }
)

GOLDEN: dict[str, dict[str, tuple[bool, float]]] = {
    "apt": {
        "pkg__apt-get-install": (True, 0.5),
        "pkg__apt-get-install-unknown": (False, 0.0),
        "pkg__apt-get-update": (False, 0.0),
    },
    "cargobuild": {
        "build__cargo-build-ripgrep-offline": (False, 0.0),
        "build__cargo-build-semver-errors": (True, 0.1),
        "build__cargo-build-semver-warnings": (True, 0.05),
    },
    "cargotest": {
        "test__cargo-test-semver-failures": (True, 0.2),
        "test__cargo-test-semver-pass": (True, 0.45),
    },
    "cc": {
        "build__gcc-cjson-warnings-only": (False, 0.0),
        "build__make-cjson-werror": (True, 0.4),
        "build__make-lua-success-verbose": (True, 0.9),
    },
    "eslint": {
        "lint__eslint-express-no-var-rule": (True, 0.65),
    },
    "flake8": {
        "lint__flake8-boltons": (True, 0.3),
    },
    "git_blame": {
        "git__blame-file": (True, 0.5),
    },
    "git_diff": {
        "git__diff-large-reformat": (False, 0.0),
        "git__diff-small-bugfix": (False, 0.0),
        "git__diff-stat-reformat": (True, 0.2),
    },
    "git_log": {
        "git__log-default-huge": (True, 0.25),
        "git__log-graph-all": (False, 0.0),
        "git__log-oneline-300": (False, 0.0),
        "git__log-patch": (False, 0.0),
        "git__show-stat": (False, 0.0),
    },
    "git_refs": {
        "git__branch-all": (False, 0.0),
    },
    "git_status": {
        "git__status-clean": (False, 0.0),
        "git__status-messy-worktree": (True, 0.25),
    },
    "java": {
        "build__javac-xlint-warnings-and-errors": (True, 0.15),
    },
    "jest": {
        "test__jest-dayjs-injected-failures": (True, 0.3),
        "test__vitest-ufo-failures": (True, 0.5),
    },
    "listing": {
        "other__find-large-tree": (True, 0.35),
    },
    "mocha": {
        "test__mocha-express-spec-pass": (True, 0.97),
    },
    "mypy": {
        "build__mypy-click-injected-errors": (True, 0.05),
        "build__mypy-marshmallow-clean": (False, 0.0),
    },
    "nodetest": {
        "test__node-test-marked-specs-spec": (False, 0.0),
        "test__node-test-marked-unit-failures": (True, 0.45),
    },
    "npm": {
        "pkg__npm-audit-endpoint-error": (False, 0.0),
        "pkg__npm-install-ansi": (False, 0.0),
        "pkg__npm-install-express": (False, 0.0),
        "pkg__npm-install-legacy-deps": (True, 0.1),
        "pkg__npm-install-nonexistent-version": (False, 0.0),
        "pkg__npm-ls": (False, 0.0),
    },
    "pip": {
        "other__pip-inspect-json": (False, 0.0),
        "pkg__pip-install-fresh-venv": (True, 0.85),
        "pkg__pip-install-nonexistent-version": (False, 0.0),
        "pkg__pip-install-quiet": (False, 0.0),
        "pkg__pip-list-system": (True, 0.0),
        "pkg__pip-show-files": (False, 0.0),
    },
    "pylint": {
        "lint__pylint-click-errors-only": (False, 0.0),
    },
    "pytest": {
        "test__pytest-boltons-default-pass": (True, 0.6),
        "test__pytest-click-default-failures": (True, 0.45),
        "test__pytest-click-failures-ansi": (True, 0.7),
        "test__pytest-click-q-pass": (True, 0.9),
        "test__pytest-click-tb-short-failures": (True, 0.3),
        "test__pytest-click-v-pass": (True, 0.97),
    },
    "ruff": {
        "lint__ruff-boltons-default-full": (True, 0.8),
        "lint__ruff-boltons-statistics": (True, 0.25),
        "lint__ruff-click-clean": (False, 0.0),
    },
    "search": {
        "other__grep-rn-def-large": (True, 0.22),
        "other__rg-unsafe": (False, 0.0),
    },
    "shellcheck": {
        "lint__shellcheck-neofetch-all-optional": (True, 0.7),
    },
    "tsc": {
        "build__tsc-ufo-injected-errors": (False, 0.0),
        "build__tsc-ufo-stricter-flags": (False, 0.0),
    },
    "unittest": {
        "test__unittest-more-itertools-pass": (False, 0.0),
        "test__unittest-more-itertools-v-pass": (True, 0.97),
    },
}

#: How much of the text a rule's snapshots hold (the whole text for the other rules): a long
#: output's head shows its form, the checks above cover all of it.
SNAPSHOT_CHARS = {"git_blame": 8000, "git_diff": 4000, "git_log": 6000, "pip": 10_000}
