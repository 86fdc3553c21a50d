"""Print the score of `make mutate` from mutmut's counts, and the mutants that survived.

Run from mutmut's working folder; timeouts count as killed (a mutant that hangs the tests is
caught), as mutmut's own score counts them."""

import json
import subprocess
import sys
from pathlib import Path


def main() -> None:
    mutmut = Path(sys.executable).with_name("mutmut")
    subprocess.run([mutmut, "export-cicd-stats"], check=True, capture_output=True)
    stats = json.loads(Path("mutants/mutmut-cicd-stats.json").read_text())
    caught = stats["killed"] + stats["timeout"]
    total = stats["total"] - stats["skipped"]
    listing = subprocess.run([mutmut, "results"], check=True, capture_output=True, text=True)
    print(listing.stdout, end="")
    print(
        f"mutation score: {caught}/{total} mutants killed ({100 * caught / total:.1f}%); "
        f"{stats['survived']} survived, {stats['no_tests']} reached by no test, "
        f"{stats['timeout']} of the killed by timeout"
    )


if __name__ == "__main__":
    main()
