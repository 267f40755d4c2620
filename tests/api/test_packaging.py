"""The wheel installs one top-level package, ``sabounds``, with every source folder mapped under it."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _declared():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(config["packages"]), config["package-dir"]


def test_every_source_package_is_declared_under_sabounds():
    packages, package_dir = _declared()
    found = set()
    for name, folder in package_dir.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *rel)))
    assert found == packages
    assert all(p == "sabounds" or p.startswith("sabounds.") for p in packages)


def test_the_layout_folders_import_as_sabounds_subpackages():
    import sabounds.numerics.proxies.published_factors as published
    import sabounds.proofs_check.verdict as verdict
    import sabounds.theory.thm41 as thm41

    assert Path(thm41.__file__).parent == ROOT / "theory"
    assert Path(published.__file__).parent == ROOT / "numerics" / "proxies"
    assert Path(verdict.__file__).parent == ROOT / "proofs_check"
