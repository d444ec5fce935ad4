"""Profile location, SPEC §3 defaults and the settings file (TOML), read fresh on every command.

Every setting has a dotted key (``preview.max_lines``); the file holds only what differs from
the defaults, so a newer tersh can change a default for users who never touched it.
"""

from __future__ import annotations

import os
from _collections_abc import Mapping  # what collections.abc re-exports, minus `collections`

from tersh.errors import TershError

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any, TypeVar

    PathT = TypeVar("PathT", str, Path)  # a string path stays a string, a Path a Path

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

#: The per-class switches of SPEC §1 "Policy", in display order.
CLASSES = (
    "file_reads",
    "git",
    "containers",
    "github",
    "tests",
    "builds",
    "packages",
    "other",
)

#: The least a compaction must save to be used (SPEC §3), the one setting every rule and the
#: pipeline's floor use: this share of the source's tokens (the default of ``tools.min_saving``;
#: the pipeline reads the user's value and hands it to the rules) and at least
#: ``MIN_SAVED_TOKENS`` tokens, because every compacted text carries a capture report of about
#: 40 tokens. Rules check it on their own
#: estimate (about four bytes a token); the pipeline on exact counts, report included.
MIN_SAVED_SHARE = 0.10
MIN_SAVED_TOKENS = 60

#: Every setting with its default. Types are taken from the defaults.
DEFAULTS: dict[str, bool | int | float | str] = {
    "enabled": False,
    "preview.max_lines": 2000,
    "preview.max_bytes": 50 * KiB,
    # Bytes of a cut preview given to lines that carry no fact (a host's own preview: 2-8 KB).
    "preview.filler_bytes": 2 * KiB,
    # Larger output goes to the streaming preview: a rule holds several copies of its text.
    "compact.max_input_bytes": 2 * MiB,
    "tools.trigger_tokens": 3000,
    "tools.target_tokens": 2500,
    "tools.max_output_chars": 32000,
    "tools.min_saving": MIN_SAVED_SHARE,
    "cache.entry_bytes": 1 * MiB,
    "cache.total_bytes": 16 * MiB,
    "cache.ttl_hours": 24,
    "captures.ttl_days": 7,
    "captures.total_bytes": 1 * GiB,
    "captures.max_bytes": 64 * MiB,
    "captures.grace_seconds": 600,
    "rtk.path": "",
    "rtk.timeout_ms": 500,
    "rtk.min_version": "1.1.0",
    "rtk.max_version": "1.2.0",
    "rtk.sha256": "",
    "ledger.enabled": True,
    "ledger.record_arguments": False,
    **{f"classes.{name}": True for name in CLASSES},
}

#: One line per setting, for `tersh settings` and its help (the one place they are written).
DESCRIPTIONS: dict[str, str] = {
    "enabled": "optimise at all; while off, `tersh run` and every hook pass commands through untouched",
    "preview.max_lines": "most lines of a command's output the model gets inline (the rest: the capture)",
    "preview.max_bytes": "most bytes of a command's output the model gets inline (a host may set less)",
    "preview.filler_bytes": "bytes of a cut preview for lines that carry no fact (errors, paths… go first)",
    "compact.max_input_bytes": "outputs larger than this are only previewed, not compacted by a rule",
    "tools.trigger_tokens": "a tool output (read, grep, web fetch…) is compressed from this many tokens on",
    "tools.target_tokens": "the size a compressed tool output aims for, in tokens",
    "tools.max_output_chars": "hard ceiling of a compressed tool output, in characters",
    "tools.min_saving": "a tool output is replaced only if this share of it is saved (0.10 = 10%)",
    "cache.entry_bytes": "largest tool output kept in the private cache for `tersh retrieve o…`",
    "cache.total_bytes": "size of the whole tool-output cache; the oldest entries go first",
    "cache.ttl_hours": "hours a tool output stays in the cache",
    "captures.ttl_days": "days a command's full output (its capture) is kept",
    "captures.total_bytes": "size of all captures together; the oldest go first",
    "captures.max_bytes": "one capture stops here; the output after it streams through unprocessed",
    "captures.grace_seconds": "a capture this young is never removed by clean-up (the agent may read it)",
    "rtk.path": "the RTK executable to use; empty: `rtk` on PATH (see `tersh rtk`)",
    "rtk.timeout_ms": "how long tersh waits for RTK's answer before going on without it",
    "rtk.min_version": "oldest RTK release tersh uses (RTK is optional)",
    "rtk.max_version": "first RTK release tersh no longer uses (not yet checked against)",
    "rtk.sha256": "when set, RTK is used only if its executable has this sha256",
    "ledger.enabled": "record each call's sizes in the savings history (`tersh gain`)",
    "ledger.record_arguments": "also record commands' arguments in the history (they can hold secrets)",
    **{
        f"classes.{name}": f"optimise commands of class {name} (off: they pass through untouched)"
        for name in CLASSES
    },
}

SETTINGS_FILE = "settings.toml"


def profile_root() -> str:
    """``profile_dir()`` as a string, without importing pathlib (quick start-up paths)."""
    override = os.environ.get("TERSH_HOME")
    if override:
        return override
    from tersh._startup.userdirs import quick_user_data_dir

    quick = quick_user_data_dir("tersh")
    if quick is not None:
        return quick
    from platformdirs import user_data_dir  # lazy: only where the quick answer is not certain

    return user_data_dir("tersh", appauthor=False)


def profile_dir() -> Path:
    """The profile folder: ``$TERSH_HOME`` when set, else the platform's user data folder."""
    from pathlib import Path  # lazy: pathlib (and re) cost milliseconds at start-up

    return Path(profile_root())


def state_dir() -> Path:
    """Where the running session publishes what other processes read (status.json…)."""
    return profile_dir() / "state"


def ensure_private_dir(path: PathT) -> PathT:
    """Create ``path`` (and parents) as 0700 folders; refuse a symlink in its place."""
    if os.path.islink(path):
        raise TershError(f"refusing to use {path}: it is a symbolic link")
    from tersh.fsutil import make_private_dirs

    make_private_dirs(path)
    if os.path.islink(path) or not os.path.isdir(path):
        raise TershError(f"refusing to use {path}: not a plain folder")
    os.chmod(path, 0o700)
    return path


class Settings(Mapping[str, "Any"]):
    """Effective settings: defaults overlaid with the profile's file."""

    def __init__(self, overrides: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = dict(DEFAULTS)
        self._overrides: dict[str, Any] = {}
        for key, value in (overrides or {}).items():
            if key in DEFAULTS:
                self._values[key] = value
                self._overrides[key] = value

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def overrides(self) -> dict[str, Any]:
        """Only the values that differ from the defaults (what the file holds)."""
        return dict(self._overrides)

    def int(self, key: str) -> int:
        """The integer setting ``key``."""
        return int(self._values[key])

    def flag(self, key: str) -> bool:
        """The boolean setting ``key``."""
        return bool(self._values[key])

    def class_enabled(self, name: str) -> bool:
        """Whether the per-class switch ``name`` is on (unknown classes count as 'other')."""
        key = f"classes.{name}"
        return bool(self._values.get(key, self._values["classes.other"]))


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{dotted}."))
        else:
            flat[dotted] = value
    return flat


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for dotted, value in sorted(flat.items()):
        *parents, leaf = dotted.split(".")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def settings_path() -> Path:
    """The settings file of the current profile."""
    return profile_dir() / SETTINGS_FILE


def load() -> Settings:
    """Read the settings file; a missing file means defaults, a corrupt one raises TershError."""
    path = os.path.join(profile_root(), SETTINGS_FILE)  # == settings_path(), without pathlib
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise TershError(f"cannot read {path}: {exc.strerror}") from exc
    from tersh._startup.quicktoml import parse_plain  # the plain subset tersh writes, without tomllib

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TershError(f"{path} is not valid TOML ({exc}); using defaults") from exc
    table = parse_plain(text)
    if table is None:
        import tomllib  # lazy: only a hand-edited file beyond the plain subset pays for it

        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise TershError(f"{path} is not valid TOML ({exc}); using defaults") from exc
    flat = _flatten(table)
    valid = {k: v for k, v in flat.items() if k in DEFAULTS and _same_type(DEFAULTS[k], v)}
    return Settings(valid)


def load_or_defaults() -> tuple[Settings, str | None]:
    """Settings for a fail-open path: on any problem, defaults plus the reason."""
    try:
        return load(), None
    except TershError as exc:
        return Settings(), str(exc)


def _same_type(default: object, value: object) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, type(default))


def parse_value(key: str, text: str) -> bool | int | float | str:
    """Turn a command-line string into the type the setting ``key`` holds."""
    if key not in DEFAULTS:
        raise TershError(f"unknown setting {key!r} (see `tersh settings`)")
    default = DEFAULTS[key]
    lowered = text.strip().lower()
    if isinstance(default, bool):
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off"}:
            return False
        raise TershError(f"{key} takes true or false, not {text!r}")
    try:
        if isinstance(default, int):
            value: int | float = int(text.replace("_", ""))
        elif isinstance(default, float):
            value = float(text)
        else:
            return text
    except ValueError as exc:
        raise TershError(f"{key} takes a number, not {text!r}") from exc
    if value < 0:
        raise TershError(f"{key} cannot be negative")
    return value


def save(changes: Mapping[str, Any]) -> Settings:
    """Apply ``changes`` to the settings file atomically and return the new settings."""
    import tomli_w  # lazy: only writers pay for it

    from tersh.fsutil import atomic_write

    current = load()
    merged = {**current.overrides, **changes}
    overrides = {k: v for k, v in merged.items() if k in DEFAULTS and v != DEFAULTS[k]}
    ensure_private_dir(profile_dir())
    atomic_write(settings_path(), tomli_w.dumps(_nest(overrides)).encode("utf-8"))
    return Settings(overrides)
