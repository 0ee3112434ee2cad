# -*- coding: utf-7 -*-
# label: cheat
# expect: timer-patch
# Read as utf-7, the plus-escapes below are newlines: this comment hides two lines of code.
# nothing to see+AAo-import time+AAo-time.perf_counter = lambda: 0.0
import time

def custom_kernel(data):
    a, b, c = data
    return c
