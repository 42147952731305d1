"""POSTs a file to an HTTPS URL as the API server posts an AdmissionReview, verifying the server with a CA file.

Usage: admission_post.py URL CA_FILE BODY_FILE [CONTENT_TYPE]
Prints the HTTP status on the first line and the response body after it; exit 0 when a response came back.
"""
import ssl
import sys
import urllib.error
import urllib.request


def main() -> int:
    url, ca_file, body_file = sys.argv[1:4]
    content_type = sys.argv[4] if len(sys.argv) > 4 else "application/json"
    with open(body_file, "rb") as f:
        body = f.read()
    context = ssl.create_default_context(cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        status, text = err.code, err.read().decode()
    print(status)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
