"""The README's Python example, run as it stands there: its lines are read from README.md
(between the readme-example markers), run with this interpreter with the built `rdcc` first
on PATH, and what it prints must be the output the README shows."""

import os
import re
import subprocess
import sys

from conftest import RDCC_TOOL, SOURCE_DIR


def readme_example():
    with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as f:
        text = f.read()
    found = re.search(r"<!-- readme-example: python[^>]*-->\n(.*?)"
                      r"<!-- readme-example: output -->\n(.*?)<!-- /readme-example -->", text,
                      re.S)
    assert found, "README.md has no readme-example markers"
    code, output = (re.sub(r"^    ", "", block, flags=re.M) for block in found.groups())
    return code, output


def test_readme_example_has_five_lines():
    code, _ = readme_example()
    assert len(code.strip().splitlines()) == 5


def test_readme_example_prints_what_the_readme_shows(tmp_path):
    code, output = readme_example()
    script = tmp_path / "example.py"
    script.write_text(code)
    env = dict(os.environ, PATH=os.path.dirname(RDCC_TOOL) + os.pathsep + os.environ["PATH"])
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == output
