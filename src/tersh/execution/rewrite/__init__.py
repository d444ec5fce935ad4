"""Optional rewriting (SPEC §1 "Rewrite"): ask a provider for a compact equivalent of a command.

``rewrite(command, settings)`` returns a :class:`Rewrite` whose ``executed`` is what to run. A
``filtered`` verdict runs the command unchanged and names the provider's filter for its output
(``pipe_filter``; see ``tersh.execution.rewrite.rtk_filter``), which the pipeline holds to the verifier. Every
refusal or failure — policy says no, a class is switched off, the provider is missing, slow,
crashing or answering garbage, or tersh itself hits a bug — returns ``executed == requested``.
A provider's answer only picks the command; it never grants or skips a permission of the host.
"""

from __future__ import annotations

import sys

from tersh.command import policy

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import NamedTuple, Protocol

    from tersh.settings import Settings
else:
    from tersh._startup.lean import NamedTuple

    Protocol = object

#: Verdicts of a rewrite, in the order a reader meets them.
VERDICTS = ("rewritten", "filtered", "none", "declined", "failed", "skipped")
#: Provider name -> module implementing :class:`Provider` (imported only when asked).
PROVIDERS = {"rtk": "tersh.execution.rewrite.rtk"}
DEFAULT_PROVIDER = "rtk"


class Proposal(NamedTuple):
    """A provider's answer for one command."""

    verdict: str  # one of VERDICTS
    candidate: str = ""  # the command as the provider wrote it (safe to record), '' if none
    executed: str = ""  # the candidate bound to the provider's verified executable, '' if none
    reason: str = ""
    pipe_filter: str = ""  # verdict "filtered": the provider's filter for the command's output


class Provider(Protocol):
    """A rewrite provider. A module satisfies it with a NAME and a ``propose`` function."""

    NAME: str

    def propose(self, command: str, settings: Settings) -> Proposal:
        """Offer an equivalent of ``command``; never raise for a provider-side failure."""
        ...


class Rewrite(NamedTuple):
    """What tersh will execute for a requested command, and why.

    ``executed`` is the runnable form (a provider bound to its verified absolute path);
    ``recorded`` is the form safe to persist (the provider's own words, no resolved path).
    """

    requested: str
    executed: str
    provider: str | None
    verdict: str
    reason: str
    classes: tuple[str, ...]
    recorded: str = ""
    pipe_filter: str = ""


def load_provider(name: str = DEFAULT_PROVIDER) -> Provider:
    """Import the provider module ``name`` (a module meets the Provider protocol)."""
    qualified = PROVIDERS[name]
    __import__(qualified)  # not importlib.import_module: importlib costs more than the import here
    module: Provider = sys.modules[qualified]
    return module


def _unchanged(command: str, verdict: str, reason: str, classes: tuple[str, ...],
               provider: str | None = None) -> Rewrite:
    return Rewrite(command, command, provider, verdict, reason, classes, command)


def rewrite(
    command: str,
    settings: Settings,
    *,
    platform: str | None = None,
    provider: Provider | None = None,
    decision: policy.Decision | None = None,
) -> Rewrite:
    """Ask the provider for an equivalent of ``command`` when the policy and switches allow it.

    ``decision`` is the policy's answer for ``command`` under ``settings`` when the caller has
    it already (the run path), so the command is not analysed twice.
    """
    try:
        return _rewrite(command, settings, platform, provider, decision)
    except Exception as exc:  # fail open: a bug in tersh must never change what runs
        return _unchanged(command, "failed", f"internal error: {type(exc).__name__}", ())


def _rewrite(command: str, settings: Settings, platform: str | None,
             provider: Provider | None, decision: policy.Decision | None) -> Rewrite:
    if decision is None:
        decision = policy.decide(command, settings=settings, platform=platform)
    if not decision.rewritable:
        return _unchanged(command, "skipped", decision.reason, decision.classes)
    if provider is None and DEFAULT_PROVIDER == "rtk":
        from tersh.execution.rewrite import rtk_probe

        absence = rtk_probe.known_absence(settings)  # no RTK: the provider need not load
        if absence:
            return _unchanged(command, "skipped", f"rtk unavailable: {absence}", decision.classes,
                              DEFAULT_PROVIDER)
    chosen = provider if provider is not None else load_provider()
    name = chosen.NAME
    proposal = chosen.propose(command, settings)
    if proposal.verdict not in ("rewritten", "filtered"):
        return _unchanged(command, proposal.verdict, proposal.reason, decision.classes, name)
    touched = policy.analyze(proposal.candidate).classes
    classes = tuple(c for c in policy.CLASS_ORDER if c in decision.classes or c in touched)
    off = [c for c in classes if not settings.class_enabled(c)]
    if off:
        reason = f"class switched off: {', '.join(off)}; rewrite discarded"
        return _unchanged(command, "skipped", reason, classes, name)
    return Rewrite(command, proposal.executed, name, proposal.verdict, proposal.reason, classes,
                   proposal.candidate, proposal.pipe_filter)
