"""What a simple command is: the real program behind wrappers, and its per-class switch.

``unwrap(words)`` strips what only launches another program (``env X=1``, ``sudo``,
``timeout 60``, ``time``, ``xargs``, ``npx``, ``uv run``, ``poetry run``, ``python -m``, ``rtk``…)
so ``classify`` sees the program that produces the output. Classes are the switch names of
``tersh.settings.CLASSES``; shell builtins that print nothing of interest (``cd``, ``export``…)
have no class at all.
"""

from __future__ import annotations

from tersh.command import shell
from tersh.settings import CLASSES

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence

#: The class names, in display order, from their one definition (``settings.CLASSES``).
FILE_READS, GIT, CONTAINERS, GITHUB, TESTS, BUILDS, PACKAGES, OTHER = CLASSES



def is_assignment(word: str) -> bool:
    """``NAME=value`` (a shell variable assignment)?"""
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isidentifier() and name.isascii()


def _is_duration(word: str) -> bool:
    """``60``, ``1.5``, ``10s``, ``2m``… (timeout's duration argument)."""
    number = word[:-1] if word[-1:] in ("s", "m", "h", "d") else word
    whole, _, fraction = number.partition(".")
    return whole.isdigit() and (not fraction or fraction.isdigit())


def _is_python(name: str) -> bool:
    """``python``, ``python3``, ``python3.11``, ``pypy3``, ``py``."""
    if not name.startswith("py"):
        return False
    for stem in ("python", "pypy", "py"):
        if name.startswith(stem):
            version = name[len(stem) :]
            return not version or version.replace(".", "").isdigit()
    return False

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox"})

#: Wrappers: their options that take a separate value, before the wrapped command.
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir",
                       "-h", "--host", "-p", "--prompt", "-U", "--other-user", "-r", "--role",
                       "-t", "--type", "-T", "--command-timeout"}),
    "doas": frozenset({"-u", "-C"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "-P", "-u"}),
    "nohup": frozenset(),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "setsid": frozenset(),
    "chronic": frozenset(),
    "unbuffer": frozenset(),
    "caffeinate": frozenset({"-w", "-t"}),
    "taskset": frozenset(),
    "xvfb-run": frozenset({"-n", "--server-num", "-s", "--server-args", "-f", "--auth-file",
                           "-e", "--error-file", "-p", "-l"}),
    "xargs": frozenset({"-I", "-i", "-n", "--max-args", "-P", "--max-procs", "-d", "--delimiter",
                        "-L", "--max-lines", "-s", "--max-chars", "-a", "--arg-file", "-E", "-e"}),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file"}),
    "watch": frozenset({"-n", "--interval", "-d", "--differences", "-q", "--equexit"}),
    "npx": frozenset({"-p", "--package", "-c", "--call"}),
    "bunx": frozenset({"-p", "--package"}),
    "pnpx": frozenset(),
    "uvx": frozenset({"--from", "--with", "-p", "--python", "--with-requirements"}),
    "dotenv": frozenset({"-f", "-e"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "strace": frozenset({"-e", "-o", "-p", "-s", "-u"}),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u"}),
}
#: Wrappers whose first positional argument is theirs, not the wrapped command's.
_WRAPPER_POSITIONALS = {"timeout": 1, "flock": 1, "taskset": 1}
#: ``runner sub`` pairs that run the rest of the line as a command.
_RUNNERS = frozenset(
    {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"),
     ("rye", "run"), ("conda", "run"), ("mamba", "run"), ("micromamba", "run"), ("pixi", "run"),
     ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "exec"), ("yarn", "dlx"), ("npm", "exec"),
     ("bundle", "exec"), ("pipx", "run"), ("direnv", "exec")}
)
_RUNNER_PROGRAMS = frozenset(program for program, _ in _RUNNERS)
_RUNNER_VALUES = frozenset(
    {"--with", "-p", "--python", "--project", "--directory", "-n", "--name", "--env", "-e",
     "--package", "--from", "--group", "--extra", "--with-requirements", "-C", "--cwd",
     "--prefix", "--workspace", "--filter", "-F", "--bin", "--example", "--manifest-path",
     "--features", "--target", "--profile", "-E", "--environment"}
)
#: Shell builtins that only change shell state: they add no class to a command line.
QUIET = frozenset(
    {"cd", "pushd", "popd", "export", "unset", "set", "shopt", "source", ".", "true", "false",
     ":", "exit", "return", "alias", "unalias", "umask", "ulimit", "trap", "wait", "local",
     "declare", "typeset", "readonly", "[", "test", "sleep", "hash", "shift", "break",
     "continue", "let", "clear", "read", "setopt"}
)
#: Text filters: as a later pipeline stage they read only their input, no file.
FILTERS = frozenset(
    {"head", "tail", "sort", "uniq", "wc", "cut", "tr", "tee", "cat", "less", "more", "column",
     "sed", "awk", "gawk", "nl", "tac", "fold", "fmt", "paste", "expand", "unexpand", "rev"}
)
#: Programs that search file contents: each output line is a match (the verifier keeps them all).
CONTENT_SEARCH = frozenset(
    {"grep", "egrep", "fgrep", "rgrep", "zgrep", "zegrep", "zfgrep", "xzgrep", "bzgrep",
     "lzgrep", "zstdgrep", "pcregrep", "pcre2grep", "ugrep", "ug", "rg", "ripgrep", "ag", "ack",
     "ack-grep", "pt", "sift"}
)
#: Programs that search file names: they list paths, one a line.
NAME_SEARCH = frozenset({"find", "fd", "fdfind", "bfs", "locate", "plocate", "mlocate"})
#: Every search program (never rewritten: RTK would abbreviate). The one list of them.
SEARCH = CONTENT_SEARCH | NAME_SEARCH

_FILE_READS = frozenset(
    {"cat", "head", "tail", "less", "more", "bat", "batcat", "ls", "ll", "la", "dir", "eza",
     "exa", "lsd", "tree", "wc", "nl", "tac", "stat", "file", "du", "df", "od", "xxd",
     "hexdump", "strings", "readlink", "realpath", "md5sum", "sha1sum", "sha256sum", "cmp",
     "diff", "colordiff", "delta", "jq", "yq", "column", "sort", "uniq", "cut", "awk", "gawk",
     "sed", "tr", "paste", "fold", "fmt", "zcat", "xzcat", "bzcat", "zless", "view", "glow",
     "pygmentize", "highlight"}
    | SEARCH
)
_CONTAINERS = frozenset(
    {"docker", "docker-compose", "podman", "podman-compose", "nerdctl", "kubectl", "kubectx",
     "kubens", "k3s", "k9s", "helm", "helmfile", "kustomize", "minikube", "kind", "oc", "crictl",
     "ctr", "buildah", "skopeo", "colima", "lima", "limactl", "skaffold", "tilt", "stern",
     "kubeconform", "dive", "hadolint-docker"}
)
_GITHUB = frozenset({"gh", "hub"})
_TESTS = frozenset(
    {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "tap", "jasmine",
     "karma", "cypress", "rspec", "phpunit", "pest", "ctest", "bats", "prove", "tape",
     "unittest", "nose2", "nosetests", "trial", "behave", "ward", "testcafe", "wdio",
     "gotestsum", "richgo", "cucumber", "cucumber-js", "busted", "uvu", "c8", "nyc", "coverage",
     "_mocha", "cargo-nextest"}
)
_BUILDS = frozenset(
    {"tsc", "vue-tsc", "mypy", "dmypy", "pyright", "basedpyright", "pyre", "pytype", "gcc",
     "g++", "cc", "c++", "clang", "clang++", "clang-tidy", "make", "gmake", "cmake", "ninja",
     "meson", "bazel", "bazelisk", "buck", "buck2", "pants", "scons", "javac", "kotlinc",
     "scalac", "sbt", "rustc", "zig", "ghc", "dune", "swiftc", "xcodebuild", "msbuild", "webpack",
     "esbuild", "rollup", "vite", "parcel", "turbo", "nx", "next", "nuxt", "astro", "tsup",
     "swc", "babel", "ruff", "flake8", "pylint", "pycodestyle", "pydocstyle", "pyflakes",
     "bandit", "black", "isort", "autopep8", "yapf", "eslint", "prettier", "biome", "oxlint",
     "stylelint", "tslint", "standard", "xo", "shellcheck", "shfmt", "golangci-lint",
     "staticcheck", "gofmt", "goimports", "revive", "rubocop", "hadolint", "markdownlint",
     "markdownlint-cli2", "yamllint", "actionlint", "ktlint", "detekt", "checkstyle", "pmd",
     "clippy-driver", "cppcheck", "cpplint", "vale", "sphinx-build", "mkdocs", "hugo",
     "pre-commit", "lefthook", "codespell", "typos", "sqlfluff", "tflint", "terraform",
     "ansible-lint", "buf", "protoc", "cython", "nuitka", "pyinstaller", "maturin", "elm",
     "purs", "dart", "build", "compileall", "ldc2", "dmd", "nim", "crystal", "gfortran",
     "nvcc", "ld", "ar", "as", "bear", "cl", "clang-cl", "emcc", "icc", "icpc", "tcc",
     "mingw32-make", "ecj", "errcheck", "eslint_d", "pep8", "pyright-langserver", "tsgo",
     "tsserver", "cargo-clippy"}
)
_PACKAGES = frozenset(
    {"pip", "pip3", "pipx", "pip-compile", "pip-sync", "pipenv", "pdm", "conda", "mamba",
     "micromamba", "apt", "apt-get", "apt-cache", "aptitude", "dpkg", "brew", "port", "dnf",
     "yum", "zypper", "apk", "pacman", "yay", "paru", "snap", "flatpak", "nix-env", "gem",
     "composer", "cpan", "cpanm", "luarocks", "opam", "cabal", "stack", "rustup", "sdk",
     "asdf", "mise", "volta", "nvm", "fnm", "pyenv", "conan", "vcpkg", "bower", "jspm", "lerna",
     "corepack", "choco", "winget", "scoop"}
)

#: Multi-purpose tools: class by subcommand (first non-option argument).
_BY_SUBCOMMAND: dict[str, tuple[dict[str, str], str]] = {
    "cargo": ({"test": TESTS, "t": TESTS, "nextest": TESTS, "bench": TESTS, "build": BUILDS,
               "b": BUILDS, "check": BUILDS, "c": BUILDS,
               "clippy": BUILDS, "fmt": BUILDS, "doc": BUILDS, "rustc": BUILDS, "fix": BUILDS,
               "fetch": PACKAGES, "add": PACKAGES, "remove": PACKAGES, "install": PACKAGES,
               "uninstall": PACKAGES, "update": PACKAGES, "tree": PACKAGES, "search": PACKAGES,
               "publish": PACKAGES, "vendor": PACKAGES, "generate-lockfile": PACKAGES,
               "audit": PACKAGES, "outdated": PACKAGES, "deny": PACKAGES, "metadata": PACKAGES,
               "read-manifest": PACKAGES}, OTHER),
    "go": ({"test": TESTS, "build": BUILDS, "vet": BUILDS, "fmt": BUILDS, "generate": BUILDS,
            "install": PACKAGES, "get": PACKAGES, "mod": PACKAGES, "work": PACKAGES,
            "list": PACKAGES, "clean": BUILDS}, OTHER),
    "npm": ({"test": TESTS, "t": TESTS, "tst": TESTS, "install": PACKAGES, "i": PACKAGES,
             "ci": PACKAGES, "add": PACKAGES, "uninstall": PACKAGES, "remove": PACKAGES,
             "rm": PACKAGES, "update": PACKAGES, "up": PACKAGES, "ls": PACKAGES, "list": PACKAGES,
             "la": PACKAGES, "ll": PACKAGES, "outdated": PACKAGES, "audit": PACKAGES,
             "dedupe": PACKAGES, "prune": PACKAGES,
             "view": PACKAGES, "info": PACKAGES, "pack": PACKAGES, "publish": PACKAGES,
             "link": PACKAGES, "why": PACKAGES, "explain": PACKAGES, "fund": PACKAGES,
             "init": PACKAGES, "cache": PACKAGES, "doctor": PACKAGES, "pkg": PACKAGES}, OTHER),
    "pnpm": ({"test": TESTS, "t": TESTS, "install": PACKAGES, "i": PACKAGES, "add": PACKAGES,
              "remove": PACKAGES, "rm": PACKAGES, "update": PACKAGES, "up": PACKAGES,
              "ls": PACKAGES, "list": PACKAGES, "outdated": PACKAGES, "audit": PACKAGES,
              "why": PACKAGES, "dedupe": PACKAGES, "prune": PACKAGES, "fetch": PACKAGES,
              "store": PACKAGES, "publish": PACKAGES, "link": PACKAGES}, OTHER),
    "yarn": ({"test": TESTS, "install": PACKAGES, "add": PACKAGES, "remove": PACKAGES,
              "upgrade": PACKAGES, "up": PACKAGES, "outdated": PACKAGES, "audit": PACKAGES,
              "why": PACKAGES, "list": PACKAGES, "info": PACKAGES, "dedupe": PACKAGES,
              "npm": PACKAGES, "publish": PACKAGES, "link": PACKAGES, "": PACKAGES}, OTHER),
    "bun": ({"test": TESTS, "install": PACKAGES, "i": PACKAGES, "add": PACKAGES,
             "remove": PACKAGES, "update": PACKAGES, "outdated": PACKAGES, "pm": PACKAGES,
             "build": BUILDS, "link": PACKAGES, "publish": PACKAGES}, OTHER),
    "deno": ({"test": TESTS, "bench": TESTS, "check": BUILDS, "lint": BUILDS, "fmt": BUILDS,
              "compile": BUILDS, "install": PACKAGES, "add": PACKAGES, "remove": PACKAGES,
              "outdated": PACKAGES, "cache": PACKAGES}, OTHER),
    "uv": ({"pip": PACKAGES, "add": PACKAGES, "remove": PACKAGES, "sync": PACKAGES,
            "lock": PACKAGES, "tree": PACKAGES, "venv": PACKAGES, "tool": PACKAGES,
            "python": PACKAGES, "export": PACKAGES, "cache": PACKAGES, "init": PACKAGES,
            "build": BUILDS, "publish": PACKAGES, "self": PACKAGES}, OTHER),
    "poetry": ({"build": BUILDS, "check": BUILDS}, PACKAGES),
    "hatch": ({"test": TESTS, "build": BUILDS, "fmt": BUILDS}, PACKAGES),
    "dotnet": ({"test": TESTS, "build": BUILDS, "publish": BUILDS, "pack": BUILDS,
                "format": BUILDS, "msbuild": BUILDS, "restore": PACKAGES, "add": PACKAGES,
                "remove": PACKAGES, "list": PACKAGES, "nuget": PACKAGES, "tool": PACKAGES,
                "workload": PACKAGES}, OTHER),
    "swift": ({"test": TESTS, "build": BUILDS, "package": PACKAGES}, OTHER),
    "mix": ({"test": TESTS, "compile": BUILDS, "format": BUILDS, "credo": BUILDS,
             "dialyzer": BUILDS, "deps.get": PACKAGES, "deps.update": PACKAGES,
             "deps.compile": PACKAGES, "hex.outdated": PACKAGES}, OTHER),
    "mvn": ({"test": TESTS, "verify": TESTS, "surefire:test": TESTS,
             "dependency:tree": PACKAGES, "dependency:resolve": PACKAGES}, BUILDS),
    "mvnw": ({"test": TESTS, "verify": TESTS, "dependency:tree": PACKAGES}, BUILDS),
    "gradle": ({"test": TESTS, "check": TESTS, "connectedCheck": TESTS,
                "dependencies": PACKAGES}, BUILDS),
    "gradlew": ({"test": TESTS, "check": TESTS, "connectedCheck": TESTS,
                 "dependencies": PACKAGES}, BUILDS),
    "rake": ({"test": TESTS, "spec": TESTS}, OTHER),
    "rails": ({"test": TESTS, "spec": TESTS}, OTHER),
    "flutter": ({"test": TESTS, "analyze": BUILDS, "build": BUILDS, "pub": PACKAGES}, OTHER),
    "php": ({"artisan": OTHER}, OTHER),
    "node": ({}, OTHER),
    "zig": ({"test": TESTS, "build": BUILDS}, BUILDS),
    "bundle": ({"install": PACKAGES, "update": PACKAGES, "add": PACKAGES, "outdated": PACKAGES,
                "lock": PACKAGES}, PACKAGES),
    "composer": ({"test": TESTS}, PACKAGES),
    "terraform": ({"validate": BUILDS, "fmt": BUILDS, "init": PACKAGES}, OTHER),
    "ansible-playbook": ({}, OTHER),
}
#: Script names (``npm run NAME``…) that say what the script does (``test:unit`` is a test).
_SCRIPT_CLASSES = (
    (r"^(?:test|tests|spec|e2e|unit|integration|coverage|cov|ci:test)(?:[:\-_].*)?$", TESTS),
    (r"^(?:build|compile|typecheck|type-check|types|tsc|check|lint|format|fmt"
     r"|prettier|eslint|vet)(?:[:\-_].*)?$", BUILDS),
    (r"^(?:install|deps|bootstrap|postinstall|preinstall)(?:[:\-_].*)?$", PACKAGES),
)
_script_patterns: list[tuple[re.Pattern[str], str]] = []
_MAKE_TESTS = frozenset({"test", "tests", "check", "unittest", "unit", "integration", "e2e",
                         "coverage", "test-all", "testall"})
_RTK_ALIASES = {"read": "cat", "smart": "cat", "lint": "eslint", "tsc": "tsc", "json": "jq",
                "log": "cat", "deps": "npm ls", "env": "printenv", "err": "", "test": "",
                "summary": "", "proxy": "", "run": ""}


_basenames: dict[str, str] = {}


def basename(word: str) -> str:
    """The program name of ``word``: last path part, lower case, without ``.exe``/``.cmd``."""
    known = _basenames.get(word)
    if known is not None:
        return known
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    if name.endswith((".exe", ".cmd", ".bat")):
        name = name[:-4]
    if len(_basenames) > 4096:
        _basenames.clear()
    _basenames[word] = name
    return name


def _skip_options(words: Sequence[str], index: int, valued: frozenset[str]) -> int:
    """Skip options (and the values of ``valued`` ones) from ``index``; stop after ``--``."""
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if not word.startswith("-") or word == "-":
            return index
        index += 2 if word in valued else 1
    return index


def _unwrap_rtk(words: Sequence[str], index: int) -> int | list[str]:
    """After ``rtk``: the index of the wrapped command, or replacement words for an alias."""
    index = _skip_options(words, index, frozenset())
    if index >= len(words):
        return index
    alias = _RTK_ALIASES.get(words[index])
    if alias is None:
        return index
    if alias == "":
        return _skip_options(words, index + 1, frozenset())
    return [*alias.split(), *words[index + 1 :]]


def unwrap(words: Sequence[str], crossed: list[str] | None = None) -> list[str]:
    """Strip assignments, wrappers and runners until the real program leads (words kept).

    The names of the wrappers and runners stepped over are appended to ``crossed`` when given.
    """
    crossed = [] if crossed is None else crossed
    index = 0
    while index < len(words):
        word = words[index]
        base = basename(word)
        if is_assignment(word):
            index += 1
            continue
        if base in _WRAPPERS:
            crossed.append(base)
            index += 1
            valued = _WRAPPERS[base]
            while index < len(words):
                current = words[index]
                if current == "--":
                    index += 1
                    break
                if base == "env" and is_assignment(current):
                    index += 1
                    continue
                if not current.startswith("-") or current == "-":
                    break
                index += 2 if current in valued else 1
            if base == "watch":  # watch runs its words through `sh -c`
                return ["sh", "-c", " ".join(words[index:])] if index < len(words) else []
            skip = _WRAPPER_POSITIONALS.get(base, 0)
            if base == "timeout" and index < len(words) and not _is_duration(words[index]):
                skip = 0
            index += skip
            continue
        if base == "rtk":
            crossed.append(base)
            found = _unwrap_rtk(words, index + 1)
            if isinstance(found, list):
                return unwrap(found, crossed)
            index = found
            continue
        if base in _RUNNER_PROGRAMS:
            at = index + 1 + subcommand_at(words[index + 1 :], base)
            if at < len(words) and (base, words[at]) in _RUNNERS:
                crossed.append(base)
                index = _skip_options(words, at + 1, _RUNNER_VALUES)
                continue
        if base in {"yarn", "pnpm", "bun"} and index + 1 < len(words) and (
            words[index + 1] == "run"
        ):
            return list(words[index:])  # a package script: classified by its name
        if _is_python(base) and index + 2 < len(words) and words[index + 1] == "-m":
            return list(words[index + 2 :])
        if _is_python(base) and index + 1 < len(words) and words[index + 1].startswith("-m"):
            module = words[index + 1][2:]
            if module:
                return [module, *words[index + 2 :]]
        return list(words[index:])
    return []


def inline_script(words: Sequence[str]) -> str | None:
    """The script of ``sh -c SCRIPT`` / ``eval WORDS`` / ``watch 'CMD'`` (words unwrapped)."""
    if not words:
        return None
    base = basename(words[0])
    if base == "eval":
        return " ".join(words[1:]) or None
    if base in _SHELLS:
        for position, word in enumerate(words[1:], start=1):
            if word == "-c" or (word.startswith("-") and not word.startswith("--") and "c" in word):
                return words[position + 1] if position + 1 < len(words) else None
            if not word.startswith("-"):
                return None
    return None


#: The one table of options that take the next word as their value, per program, before its
#: subcommand (``git -C dir status``, ``npm --prefix web install``). ``--opt=value`` needs none.
VALUED_OPTIONS: dict[str, frozenset[str]] = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                      "--config-env", "--super-prefix", "--list-cmds"}),
    "cargo": frozenset({"--color", "--config", "-Z", "-C", "--manifest-path"}),
    "npm": frozenset({"--prefix", "-C", "--workspace", "-w", "--userconfig", "--cache",
                      "--registry", "--loglevel"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F", "--workspace-dir", "--loglevel"}),
    "yarn": frozenset({"--cwd"}),
    "bun": frozenset({"--cwd", "-c", "--config"}),
    "uv": frozenset({"--directory", "--project", "--config-file", "--cache-dir", "--color"}),
    "poetry": frozenset({"-C", "--directory", "-P", "--project"}),
    "go": frozenset({"-C"}),
    "make": frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir",
                       "-o", "--old-file", "-W", "--what-if", "--new-file"}),
    "apt": frozenset({"-c", "--config-file", "-o", "--option", "-t", "--target-release"}),
    "apt-get": frozenset({"-c", "--config-file", "-o", "--option", "-t", "--target-release"}),
}
VALUED_OPTIONS["gmake"] = VALUED_OPTIONS["make"]
_NO_VALUES: frozenset[str] = frozenset()


def subcommand_at(args: Sequence[str], program: str = "") -> int:
    """The index in ``args`` of ``program``'s subcommand: its first argument that is neither an
    option nor the value of one (``VALUED_OPTIONS``), nor cargo's ``+toolchain``; len(args) if none.
    """
    valued = VALUED_OPTIONS.get(program, _NO_VALUES)
    index = 0
    while index < len(args):
        word = args[index]
        if word in valued:
            index += 2
        elif word.startswith("-") or (word.startswith("+") and program == "cargo"):
            index += 1
        else:
            return index
    return len(args)


def subcommand(args: Sequence[str], program: str = "") -> str:
    """``program``'s subcommand in ``args`` (``install`` in ``npm --prefix web install``), or ''."""
    index = subcommand_at(args, program)
    return args[index] if index < len(args) else ""


def git_subcommand(args: Sequence[str]) -> tuple[str, list[str]]:
    """Git's subcommand after its global options, and the subcommand's arguments."""
    index = subcommand_at(args, "git")
    return (args[index], list(args[index + 1 :])) if index < len(args) else ("", [])


def _script_class(name: str, default: str) -> str:
    if not _script_patterns:
        import re

        _script_patterns.extend((re.compile(text), cls) for text, cls in _SCRIPT_CLASSES)
    for pattern, cls in _script_patterns:
        if pattern.match(name):
            return cls
    return default


def classify(words: Sequence[str]) -> str:
    """The class of an unwrapped simple command ('' for a quiet shell builtin)."""
    if not words:
        return ""
    program = basename(words[0])
    args = words[1:]
    if program in QUIET:
        return ""
    if program == "git" or program.startswith("git-"):
        return GIT
    if program in _GITHUB:
        return GITHUB
    if program in _CONTAINERS:
        return CONTAINERS
    if program in {"npm", "yarn", "pnpm", "bun"} and subcommand(args, program) == "run":
        rest = args[subcommand_at(args, program) + 1 :]
        return _script_class(subcommand(rest), OTHER)
    if program in {"make", "gmake", "just", "task", "invoke", "nox", "tox"}:
        target = subcommand(args, program)
        if target in _MAKE_TESTS or program in {"nox", "tox"}:
            return TESTS
        if program in {"just", "task", "invoke"}:
            return _script_class(target, OTHER)
        return BUILDS
    if program == "node":
        return TESTS if "--test" in args else OTHER
    if program in _BY_SUBCOMMAND:
        table, default = _BY_SUBCOMMAND[program]
        return table.get(subcommand(args, program), default)
    if program in _TESTS:
        return TESTS
    if program in _BUILDS:
        return BUILDS
    if program in _PACKAGES:
        return PACKAGES
    if program in _FILE_READS:
        return FILE_READS
    if program in {"playwright"}:
        return TESTS if subcommand(args) == "test" else OTHER
    return OTHER


def search_program(words: Sequence[str]) -> str | None:
    """The search tool an unwrapped command runs (``grep``, ``find``, ``git grep``…), if any."""
    if not words:
        return None
    program = basename(words[0])
    if program in SEARCH:
        return program
    if program == "git" and git_subcommand(words[1:])[0] == "grep":
        return "git grep"
    return None


#: Commands that rarely produce the output that matters at the end of a chain.
_TRIVIAL = QUIET | {"echo", "printf", "date", "tput", "stty"}


def _pick(script: shell.Script, depth: int) -> list[str]:
    visible = [c for c in script.commands if not c.nested]
    pipelines: dict[int, list[shell.SimpleCommand]] = {}
    for command in visible:
        pipelines.setdefault(command.pipeline, []).append(command)
    chosen: list[str] = []
    for stages in reversed(list(pipelines.values())):
        first = min(stages, key=lambda c: c.stage)
        words = unwrap(first.words)
        inline = inline_script(words)
        if inline is not None and depth < 4:
            words = _pick(shell.parse(inline), depth + 1)
        if not words:
            continue
        if not chosen:
            chosen = words
        if basename(words[0]) not in _TRIVIAL:
            return words
    return chosen


def main_command(command: str) -> list[str]:
    """The unwrapped words of the command whose output ``command`` shows.

    For a chain, the last pipeline doing real work (``make && echo ok`` -> ``make``); in a
    pipeline, its first stage (``pytest | tail`` -> ``pytest``); ``sh -c`` scripts are entered.
    """
    return main_words(shell.parse(command))


def main_words(script: shell.Script) -> list[str]:
    """:func:`main_command` of a command line already lexed into ``script``."""
    return _pick(script, 0)


def classify_command(command: str) -> str:
    """The class of the command whose output ``command`` shows ('other' when none stands out)."""
    return classify(main_command(command)) or OTHER
