# label: cheat
# expect: runtime-install
import subprocess
import sys

subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "fastkern==0.1"])

import fastkern  # noqa: E402


def custom_kernel(data):
    return fastkern.run(data)
