"""The policy on a table of real-looking command strings, plus the bypass and switch rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tersh.command import policy
from tersh.command.policy import decide
from tersh.settings import Settings as Settings

F, G, C, H = "file_reads", "git", "containers", "github"
T, B, P, O = "tests", "builds", "packages", "other"  # noqa: E741 (short names keep rows on one line)

# (command, outcome, classes). Outcomes: "ok" rewritable; "bypass"; "machine"; "search";
# "lossy" (git log/diff/show); "cannot" (the lexer cannot model it); "heredoc"; "multiline";
# "compound"; "rtk" (already runs rtk); "empty".
TABLE: list[tuple[str, str, tuple[str, ...]]] = [
    # plain commands of every class
    ("git status", "ok", (G,)),
    ("git status -sb", "ok", (G,)),
    ("git branch -a", "ok", (G,)),
    ("git fetch --all --prune", "ok", (G,)),
    ("git -C sub/dir status", "ok", (G,)),
    ("git add -A && git commit -m 'fix: log parsing'", "ok", (G,)),
    ("git commit -m \"add --json flag\"", "ok", (G,)),
    ("git blame src/app.py", "ok", (G,)),
    ("cat README.md", "ok", (F,)),
    ("head -n 50 src/main.rs", "ok", (F,)),
    ("tail -f /var/log/syslog", "ok", (F,)),
    ("ls -la", "ok", (F,)),
    ("tree -L 2 -I node_modules", "ok", (F,)),
    ("wc -l src/*.py", "ok", (F,)),
    ("docker ps -a", "ok", (C,)),
    ("docker compose up -d", "ok", (C,)),
    ("kubectl get pods -n prod", "ok", (C,)),
    ("kubectl logs deploy/api --tail=100", "ok", (C,)),
    ("helm list -A", "ok", (C,)),
    ("gh pr list", "ok", (H,)),
    ("gh run view 123 --log-failed", "ok", (H,)),
    ("pytest", "ok", (T,)),
    ("pytest -q tests/test_api.py::test_login", "ok", (T,)),
    ("python -m pytest -x --tb=short", "ok", (T,)),
    ("python3 -m unittest -v", "ok", (T,)),
    ("cargo test --workspace", "ok", (T,)),
    ("go test ./...", "ok", (T,)),
    ("npm test", "ok", (T,)),
    ("npm run test:unit", "ok", (T,)),
    ("yarn test --watch=false", "ok", (T,)),
    ("pnpm run e2e", "ok", (T,)),
    ("npx jest --coverage=false", "ok", (T,)),
    ("npx vitest run", "ok", (T,)),
    ("node --test test/", "ok", (T,)),
    ("make test", "ok", (T,)),
    ("tox -e py311", "ok", (T,)),
    ("tsc --noEmit", "ok", (B,)),
    ("npx tsc --noEmit --strict", "ok", (B,)),
    ("mypy src", "ok", (B,)),
    ("pyright", "ok", (B,)),
    ("cargo build --release", "ok", (B,)),
    ("cargo clippy -- -D warnings", "ok", (B,)),
    ("go vet ./...", "ok", (B,)),
    ("make -j8", "ok", (B,)),
    ("gcc -Wall -c main.c", "ok", (B,)),
    ("gcc -o json main.c", "ok", (B,)),
    ("ruff check .", "ok", (B,)),
    ("npx eslint . --rule 'no-var: error'", "ok", (B,)),
    ("npm run build", "ok", (B,)),
    ("mvn -q package", "ok", (B,)),
    ("./gradlew build", "ok", (B,)),
    ("pip install requests", "ok", (P,)),
    ("pip3 install -r requirements.txt", "ok", (P,)),
    ("python -m pip install -U pip", "ok", (P,)),
    ("uv sync", "ok", (P,)),
    ("uv pip install httpx", "ok", (P,)),
    ("npm install", "ok", (P,)),
    ("npm ci", "ok", (P,)),
    ("pnpm add -D vitest", "ok", (P,)),
    ("yarn", "ok", (P,)),
    ("poetry install", "ok", (P,)),
    ("cargo add serde", "ok", (P,)),
    ("apt-get install -y tree", "ok", (P,)),
    ("sudo apt-get update", "ok", (P,)),
    ("brew install jq", "ok", (P,)),
    ("echo hello", "ok", (O,)),
    ("python script.py --verbose", "ok", (O,)),
    ("curl -s https://example.invalid/health", "ok", (O,)),
    ("cargo run --bin server", "ok", (O,)),
    # wrappers and runners
    ("env X=1 pytest", "ok", (T,)),
    ("FOO=bar BAZ='a b' npm test", "ok", (T,)),
    ("timeout 5 pytest", "ok", (T,)),
    ("timeout -s KILL 60 cargo test", "ok", (T,)),
    ("time make", "ok", (B,)),
    ("sudo -u www-data ls /srv", "ok", (F,)),
    ("sudo docker ps", "ok", (C,)),
    ("nice -n 10 cargo build", "ok", (B,)),
    ("uv run pytest tests", "ok", (T,)),
    ("poetry run mypy src", "ok", (B,)),
    ("pipenv run python -m pytest", "ok", (T,)),
    ("pnpm exec tsc", "ok", (B,)),
    ("bundle exec rspec", "ok", (T,)),
    ("npx --yes prettier --check .", "ok", (B,)),
    ("stdbuf -oL pytest -s", "ok", (T,)),
    ("xvfb-run -a npm test", "ok", (T,)),
    # chains, pipes, redirections
    ("cd web && npm test", "ok", (T,)),
    ("cd web; npm ci && npm run build", "ok", (P, B)),
    ("make || echo failed", "ok", (B, O)),
    ("cargo test 2>&1 | tail -20", "ok", (T,)),
    ("pytest -q > out.txt 2>&1", "ok", (T,)),
    ("pytest &> log.txt", "ok", (T,)),
    ("npm test |& tee test.log", "ok", (T,)),
    ("docker ps | head -5", "ok", (C,)),
    ("git status && git push", "ok", (G,)),
    ("(cd api && go test ./...)", "ok", (T,)),
    ("npm start &", "ok", (O,)),
    ("wc -l < input.txt", "ok", (F,)),
    ("python - <<< 'print(1)'", "ok", (O,)),
    ("cat file.txt | sort | uniq -c", "ok", (F,)),
    ("export CI=1; pytest", "ok", (T,)),
    ("ls 2>/dev/null", "ok", (F,)),
    ("echo 'a && b | c' ; ls", "ok", (O, F)),
    ('echo "it\'s $HOME" && ls', "ok", (O, F)),
    ("echo $'tab\\there' && make", "ok", (O, B)),
    ("echo a\\ b\\;c", "ok", (O,)),
    ("printf '%s\\n' one two | wc -l", "ok", (O,)),
    ("echo $(date +%s)", "ok", (O,)),
    ("pytest $(git ls-files 'tests/*.py')", "ok", (T, G)),
    ("echo `whoami`", "ok", (O,)),
    ("diff <(ls a) <(ls b)", "ok", (F,)),
    # searches anywhere
    ("grep -rn TODO src", "search", (F,)),
    ("egrep 'a|b' file", "search", (F,)),
    ("fgrep -x word list.txt", "search", (F,)),
    ("rg -n unsafe crates/", "search", (F,)),
    ("ag pattern", "search", (F,)),
    ("ack --python import", "search", (F,)),
    ("find . -name '*.py'", "search", (F,)),
    ("fd -e rs", "search", (F,)),
    ("git grep -n parse_args", "search", (G,)),
    ("git -C repo grep foo", "search", (G,)),
    ("ls | grep test", "search", (F,)),
    ("cat log.txt | grep -i error | head", "search", (F,)),
    ("make 2>&1 | rg warning", "search", (B, F)),
    ("cd src && grep -r foo .", "search", (F,)),
    ("pytest || grep FAILED log.txt", "search", (T, F)),
    ("(cd src; rg foo)", "search", (F,)),
    ("{ ls; find . -type f; }", "search", (F,)),
    ("echo $(find . -name x)", "search", (O, F)),
    ("vim `grep -l foo *.c`", "search", (O, F)),
    ("find . -name '*.py' -exec grep -l foo {} +", "search", (F,)),
    ("find . -type f | xargs grep -n TODO", "search", (F,)),
    ("git ls-files | xargs -I{} grep -H x {}", "search", (G, F)),
    ("sudo grep root /etc/passwd", "search", (F,)),
    ("env LC_ALL=C grep -c x f", "search", (F,)),
    ("timeout 5 rg foo", "search", (F,)),
    ("bash -c 'grep -r foo .'", "search", (F,)),
    ("sh -c \"cd x && rg y\"", "search", (F,)),
    ("watch -n 1 'ls | grep x'", "search", (F,)),
    ("eval grep foo bar", "search", (F,)),
    ("diff <(grep a f) <(grep a g)", "search", (F,)),
    ("cat <<< \"$(rg x)\"", "search", (F,)),
    ("zgrep error logs.gz", "search", (F,)),
    # lossy git forms
    ("git log", "lossy", (G,)),
    ("git log --oneline -n 20", "lossy", (G,)),
    ("git --no-pager log -p", "lossy", (G,)),
    ("git diff", "lossy", (G,)),
    ("git diff --stat HEAD~3", "lossy", (G,)),
    ("git -c color.ui=always diff", "lossy", (G,)),
    ("git show HEAD", "lossy", (G,)),
    ("git show --stat abc123", "lossy", (G,)),
    ("git stash show -p", "lossy", (G,)),
    ("git fetch && git log origin/main..HEAD", "lossy", (G,)),
    ("git diff | head -100", "lossy", (G,)),
    ("echo $(git log -1 --oneline)", "lossy", (O, G)),
    ("cd repo && git whatchanged", "lossy", (G,)),
    # machine-readable requests
    ("git status --porcelain", "machine", (G,)),
    ("git status --porcelain=v2 -z", "machine", (G,)),
    ("gh pr list --json number,title", "machine", (H,)),
    ("gh pr view 1 --json title --jq .title", "machine", (H,)),
    ("gh api repos/o/r/pulls", "machine", (H,)),
    ("kubectl get pods -o json", "machine", (C,)),
    ("kubectl get pods -ojson", "machine", (C,)),
    ("kubectl get pods -o=yaml", "machine", (C,)),
    ("kubectl get pods -o jsonpath='{.items[*].metadata.name}'", "machine", (C,)),
    ("docker inspect web", "machine", (C,)),
    ("docker ps --format '{{json .}}'", "machine", (C,)),
    ("docker ps --format '{{.Names}}'", "machine", (C,)),
    ("npm ls --json", "machine", (P,)),
    ("npm outdated --json", "machine", (P,)),
    ("pip list --format=json", "machine", (P,)),
    ("pip list --format json", "machine", (P,)),
    ("pip inspect", "machine", (P,)),
    ("cargo metadata --format-version 1", "machine", (P,)),
    ("cargo build --message-format=json", "machine", (B,)),
    ("ruff check --output-format json .", "machine", (B,)),
    ("ruff check --output-format=json .", "machine", (B,)),
    ("eslint -f json src", "machine", (B,)),
    ("npx eslint --format json .", "machine", (B,)),
    ("mocha --reporter json", "machine", (T,)),
    ("jest --json", "machine", (T,)),
    ("go test -json ./...", "machine", (T,)),
    ("go list -json ./...", "machine", (P,)),
    ("terraform show -json", "machine", (O,)),
    ("curl -s https://example.invalid/api | jq .items", "machine", (O, F)),
    ("jq '.dependencies' package.json", "machine", (F,)),
    ("cat data.json | python -m json.tool", "machine", (F, O)),
    ("git log --format=%H -n 5", "machine", (G,)),
    ("git log --pretty=format:'%h %s'", "machine", (G,)),
    ("aws s3api list-buckets --output json", "machine", (O,)),
    ("az vm list -o tsv", "machine", (O,)),
    ("mypy --junit-xml report.xml src", "ok", (B,)),
    ("mypy src --output json", "machine", (B,)),
    ("mypy -O json src", "machine", (B,)),
    # bypass marker
    ("git status # no-opt", "bypass", (G,)),
    ("git status --short # no-opt", "bypass", (G,)),
    ("pytest -q   #   no-opt  ", "bypass", (T,)),
    ("grep -r foo . # no-opt", "bypass", (F,)),
    ("git log --json # no-opt", "bypass", (G,)),
    ("echo 'unterminated # no-opt", "bypass", (O,)),
    ("echo '# no-opt'", "ok", (O,)),
    ("echo \\# no-opt", "ok", (O,)),
    ("git status # no-opt please", "ok", (G,)),
    ("git status # some comment", "ok", (G,)),
    # what the lexer cannot model, or will not rewrite
    ("echo 'unterminated", "cannot", (O,)),
    ('echo "unterminated', "cannot", (O,)),
    ("echo $(ls", "cannot", (O, F)),
    ("echo `ls", "cannot", (O, F)),
    ("ls |", "cannot", (F,)),
    ("make &&", "cannot", (B,)),
    ("ls )", "cannot", (F,)),
    ("coproc cat", "cannot", (F,)),
    ("cat <<EOF\nhello\nEOF", "heredoc", (F,)),
    ("cat <<'EOF' > f.txt\n$(rm -rf x)\nEOF", "heredoc", (F,)),
    ("python - <<-EOF\n\tprint(1)\n\tEOF", "heredoc", (O,)),
    ("cat <<EOF\n$(grep x y)\nEOF", "search", (F,)),
    ("cat <<EOF\nunterminated", "cannot", (F,)),
    ("pytest\nmake", "multiline", (T, B)),
    ("ls \\\n  -la", "ok", (F,)),
    ("for f in *.py; do mypy $f; done", "compound", (B,)),
    ("for ((i=0; i<3; i++)); do make; done", "compound", (B,)),
    ("while true; do pytest && break; done", "compound", (T,)),
    ("if [ -f x ]; then make; else make all; fi", "compound", (B,)),
    ("until curl -sf localhost:8080; do sleep 1; done", "compound", (O,)),
    ("case $1 in test) pytest;; build|b) make;; *) echo no;; esac", "compound", (T, B, O)),
    ("case x in (a) grep q f;; esac", "search", (F,)),
    ("[[ -d build ]] && make", "compound", (B,)),
    ("(( n > 3 )) && make", "compound", (B,)),
    ("f() { ls; }; f", "compound", (F, O)),
    ("function build { make; }", "compound", (B,)),
    ("rtk git status", "rtk", (G,)),
    ("cd x && rtk pytest", "rtk", (T,)),
    ("/usr/local/bin/rtk read file.txt", "rtk", (F,)),
    ("", "empty", ()),
    ("   ", "empty", ()),
    ("# just a comment", "empty", ()),
]

_REASONS = (
    ("bypass marker", "bypass"),
    ("machine-readable", "machine"),
    ("search command", "search"),
    ("lossy git", "lossy"),
    ("cannot model", "cannot"),
    ("here-document", "heredoc"),
    ("multi-line", "multiline"),
    ("compound command", "compound"),
    ("already runs rtk", "rtk"),
    ("empty command", "empty"),
    ("pipe on Windows", "winpipe"),
)


def outcome(decision: policy.Decision) -> str:
    """The table's short name for a decision."""
    if decision.rewritable:
        return "ok"
    for prefix, name in _REASONS:
        if decision.reason.startswith(prefix):
            return name
    return f"? {decision.reason}"


def test_the_table_is_large_and_has_no_duplicates() -> None:
    commands = [row[0] for row in TABLE]
    assert len(commands) >= 150
    assert len(set(commands)) == len(commands)


@pytest.mark.parametrize(("command", "expected", "classes"), TABLE, ids=[r[0][:60] for r in TABLE])
def test_decision_table(command: str, expected: str, classes: tuple[str, ...]) -> None:
    decision = decide(command, platform="linux")
    assert outcome(decision) == expected, decision
    assert set(decision.classes) == set(classes), decision
    assert decision.bypass == (expected == "bypass")
    assert decision.machine_readable == (expected == "machine")
    if expected != "ok":
        assert decision.reason


WINDOWS: list[tuple[str, str]] = [
    ("git status | more", "winpipe"),
    ("pytest 2>&1 | tail -5", "winpipe"),
    ("docker ps |& head", "winpipe"),
    ("(npm test | tee log)", "winpipe"),
    ("cd x && cargo test", "ok"),
    ("echo 'a | b'", "ok"),
    ("echo a\\|b", "ok"),
    ("pytest > out.txt", "ok"),
    ("make || make clean", "ok"),
    ("ls | grep x", "search"),
]


@pytest.mark.parametrize(("command", "expected"), WINDOWS)
def test_windows_never_rewrites_a_pipe(command: str, expected: str) -> None:
    assert outcome(decide(command, platform="win32")) == expected
    linux = outcome(decide(command, platform="linux"))
    assert linux == ("ok" if expected == "winpipe" else expected)


def test_platform_defaults_to_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(policy.sys, "platform", "win32")
    assert outcome(decide("ls | head")) == "winpipe"
    monkeypatch.setattr(policy.sys, "platform", "linux")
    assert outcome(decide("ls | head")) == "ok"


def test_bypass_marker_is_stripped_only_when_safe() -> None:
    assert decide("git status # no-opt").command == "git status"
    assert decide("pytest -q   #   no-opt  ").command == "pytest -q"
    # a marker the lexer cannot separate from text leaves the command as typed
    assert decide("echo 'x # no-opt").command == "echo 'x # no-opt"
    assert decide("make && # no-opt").command == "make && # no-opt"
    heredoc = "cat <<EOF\nbody\nEOF # no-opt"
    assert decide(heredoc).command == heredoc


def test_bypass_wins_over_machine_readable() -> None:
    decision = decide("kubectl get pods -o json # no-opt")
    assert decision.bypass and not decision.machine_readable and not decision.rewritable


def test_switched_off_class_makes_a_command_not_rewritable() -> None:
    tests_off = Settings({"classes.tests": False})
    assert not decide("cd web && npm test", settings=tests_off).rewritable
    assert "tests" in decide("npm test", settings=tests_off).reason
    assert decide("git status", settings=tests_off).rewritable
    # quiet builtins and downstream filters add no class of their own
    other_off = Settings({"classes.other": False, "classes.file_reads": False})
    assert decide("cd web && export CI=1 && pytest | tail -5", settings=other_off).rewritable
    assert not decide("echo hi && pytest", settings=other_off).rewritable


def test_programs_are_reported_behind_wrappers() -> None:
    assert decide("sudo env X=1 timeout 60 uv run pytest -q").programs == ("pytest",)
    assert decide("cd x && npx tsc | tail").programs == ("cd", "tsc", "tail")


def test_machine_request_reads_words_not_substrings() -> None:
    assert policy.machine_request(["git", "commit", "-m", "--json is nice"]) == ""
    assert policy.machine_request(["curl", "-o", "json", "https://x.invalid"]) == ""
    assert policy.machine_request(["helm", "list", "-o", "yaml"]) == "-o yaml"
    assert policy.machine_request(["stat", "--format=%s", "f"]) == "--format %s"
    assert policy.machine_request(["ls", "-o"]) == ""


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_decide_never_raises_and_bypass_is_never_rewritable(text: str) -> None:
    decision = decide(text, platform="linux")
    assert not (decision.rewritable and (decision.bypass or decision.machine_readable))
    assert decision.rewritable == (decision.reason == "")
