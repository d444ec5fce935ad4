"""The demo's closing table: what the command printed against what the model receives.

Usage: python scripts/demo_summary.py MODEL_TEXT_FILE EXIT_CODE COMMAND...
Reads the newest capture in the profile ($TERSH_HOME), counts exact o200k tokens of both sides
and checks, with tersh's own verifier, how many of the protected facts of the complete output
(every error, warning, path, location, rule code …) are in the text the model received.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path


def _size(count: int) -> str:
    return f"{count / 1024:,.1f} KB" if count >= 1024 else f"{count} B"


def main() -> int:
    """Print the side-by-side summary; exit 1 when the arguments or the capture are missing."""
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    from tersh import settings, tokens
    from tersh.compaction import detect
    from tersh.compaction.verify import holds as verify

    model_file, exit_code, command = Path(sys.argv[1]), int(sys.argv[2]), shlex.join(sys.argv[3:])
    folders = [p for p in (settings.profile_dir() / "captures").iterdir() if p.is_dir()]
    if not folders:
        print("demo: no capture was made", file=sys.stderr)
        return 1
    capture = max(folders, key=lambda p: p.stat().st_mtime)
    raw = (capture / "combined").read_bytes().decode("utf-8", "replace")
    sent = model_file.read_text(encoding="utf-8", errors="replace")
    facts = verify.extract_facts(raw, detect.invocation(command, exit_code))
    lost = verify.missing_facts(raw, sent, detect.invocation(command, exit_code))
    raw_tokens, sent_tokens = tokens.count(raw), tokens.count(sent)
    rows = [
        ("", "bytes", "o200k tokens"),
        ("the command printed", _size(len(raw.encode())), f"{raw_tokens:,}"),
        ("the model receives", _size(len(sent.encode())), f"{sent_tokens:,}"),
    ]
    for label, size, count in rows:
        print(f"  {label:<22}{size:>12}{count:>16}")
    saved = 100 * (1 - sent_tokens / raw_tokens) if raw_tokens else 0.0
    print(f"  {saved:.1f}% fewer tokens; exit code {exit_code} (the command's own)")
    kept = len(facts) - len(lost)
    print(f"  protected facts in the model text: {kept:,} of {len(facts):,} (verifier)")
    print(f"  every byte, in order: {capture}/combined")
    print(f"  what the model read:  {model_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
