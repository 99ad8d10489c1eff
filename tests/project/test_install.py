"""The install: pyproject.toml and environment.yml name the same dependencies."""

import tomllib

import yaml

from autograder.release import ROOT


def test_environment_yml_and_pyproject_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert sorted(p for p in pip if p != "-e .") == sorted(project["dependencies"])
    assert f"python{project['requires-python']}" in env["dependencies"]
