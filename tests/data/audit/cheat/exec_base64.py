# label: cheat
# expect: obfuscated-exec
import base64

_payload = "aW1wb3J0IHRvcmNoCmRlZiBjdXN0b21fa2VybmVsKGRhdGEpOgogICAgcmV0dXJuIGRhdGFbLTFd"
exec(base64.b64decode(_payload).decode())
