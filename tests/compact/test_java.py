"""The java rule (javac, Maven, Gradle) on real and recorded builds."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from tersh.compaction import detect, rule_for_program
from tersh.compaction.rules import java as rule
from tests.compact import support

FIXTURES = {  # name: (command, exit code, applied)
    "javac-errors": ("javac -Xlint:all Main.java", 1, False),  # too little to drop: left as is
    "gradle-failure": ("./gradlew build", 1, True),
    "maven-failure": ("mvn -q compile", 1, True),
}


@pytest.mark.parametrize("name", FIXTURES)
def test_recorded_build(name: str, snapshot: SnapshotAssertion) -> None:
    cmd, exit_code, applied = FIXTURES[name]
    outcome = support.check_text_fixture(rule, "java", name, cmd, exit_code)
    assert outcome.applied is applied, outcome.refused
    assert outcome.text == snapshot


def test_javac_details_stay_quoted_source_goes() -> None:
    case = support.case("build__javac-xlint-warnings-and-errors")
    text = support.run(rule, case.combined, case.cmd, case.exit_code).text
    assert "src/main/java/org/jsoup/Jsoup.java:78: error: cannot find symbol" in text
    assert "  symbol:   method parseHtml(String,String)" in text
    assert "  location: class Parser" in text
    assert 'int cached = "text";' not in text
    assert text.splitlines()[-3:-1] == ["2 errors", "14 warnings"]


def test_gradle_and_maven_outcomes_stay() -> None:
    gradle = support.check_text_fixture(rule, "java", "gradle-failure", "gradle build", 1).text
    assert "BUILD FAILED in 4s" in gradle and "* What went wrong:" in gradle
    assert "> Task :app:compileJava FAILED" in gradle
    assert "Run with --scan" not in gradle
    maven = support.check_text_fixture(rule, "java", "maven-failure", "mvn compile", 1).text
    assert "[INFO] BUILD FAILURE" in maven
    assert "[ERROR] /home/dev/work/app/src/main/java/com/example/App.java:[12,28] cannot find symbol" in maven
    assert "--- compiler:3.11.0:compile" not in maven


def test_empty_and_foreign_input() -> None:
    inv = detect.invocation("mvn test", 0)
    assert rule.compact("", inv) is None
    assert rule.compact("hello\nworld\n", inv) is None


def test_registry_and_sniffer() -> None:
    assert rule_for_program(detect.invocation("./gradlew assemble", 0)) is rule
    assert rule_for_program(detect.invocation("mvn -B package", 0)) is rule
    assert rule.sniff(support.text_fixture("java", "javac-errors")) >= 0.9
    assert rule.sniff("nothing\n") == 0.0
