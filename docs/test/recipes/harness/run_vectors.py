# Reads the vector protocol of ../recipes.test.ts on stdin and checks each case with docs/recipes/verify.py.
# One line per case: name, now (s), tolerance (s), header (base64, or "-" when absent), body (base64),
# then one base64 field per secret. Writes "name<TAB>valid" or "name<TAB><reason>".
import base64
import sys

sys.path.insert(0, sys.argv[1])
from verify import VerificationError, verify_signature  # noqa: E402

for line in sys.stdin:
    name, now, tolerance, header, body, *secrets = line.rstrip("\n").split("\t")
    try:
        verify_signature(
            None if header == "-" else base64.b64decode(header).decode("utf-8"),
            base64.b64decode(body),
            [base64.b64decode(secret).decode("utf-8") for secret in secrets],
            tolerance_seconds=int(tolerance),
            now_seconds=int(now),
        )
        print(f"{name}\tvalid")
    except VerificationError as error:
        print(f"{name}\t{error.reason}")
