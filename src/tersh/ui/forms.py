"""Check a settings change sent by the page before it reaches the settings file.

Only the keys the page shows can be changed (the toggle, the per-class switches, the budgets);
each value must have the setting's type and lie in its range. A bad change is refused whole.
"""

from __future__ import annotations

from typing import Any

from tersh import settings
from tersh.errors import TershError
from tersh.ui.views import BUDGETS


def editable_keys() -> frozenset[str]:
    """The settings the page may change."""
    switches = {f"classes.{name}" for name in settings.CLASSES}
    return frozenset({"enabled", *switches, *BUDGETS})


def validate(changes: object) -> dict[str, bool | int | float]:
    """The checked ``{key: value}`` change; TershError naming the first problem."""
    if not isinstance(changes, dict) or not changes:
        raise TershError("send an object of settings to change")
    allowed = editable_keys()
    checked: dict[str, bool | int | float] = {}
    for key, value in changes.items():
        if key not in allowed:
            raise TershError(f"{key!r} cannot be changed here")
        checked[key] = _checked_value(key, value)
    return checked


def _checked_value(key: str, value: Any) -> bool | int | float:
    default = settings.DEFAULTS[key]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise TershError(f"{key} takes true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TershError(f"{key} takes a number")
    if isinstance(default, int) and not float(value).is_integer():
        raise TershError(f"{key} takes a whole number")
    number: int | float = int(value) if isinstance(default, int) else float(value)
    label, unit, low, high = BUDGETS[key]
    if not low <= number <= high:
        raise TershError(f"{label} must be between {low:g} and {high:g} {unit}")
    return number


def apply(changes: object) -> settings.Settings:
    """Validate ``changes`` and write them to the settings file (atomically)."""
    return settings.save(validate(changes))
