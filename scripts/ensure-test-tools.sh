#!/usr/bin/env bash
# The tests use Debian packages, installed here when absent:
# - chromium: browser tests drive Debian's chromium (Playwright cannot download a browser here);
# - python3-openpyxl: the contact import tests read XLSX files written by another program (openpyxl), not by us;
# - dovecot-imapd: the bounce mailbox tests read returned mail from a real IMAP server (tests/helpers/dovecot.ts);
# - spamd (with spamassassin and its rules): the pre-send checks' spam score is asked of a real spamd (tests/helpers/spamd.ts).
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
/usr/bin/python3 -c 'import openpyxl' 2>/dev/null || missing+=(python3-openpyxl)
[ -x /usr/sbin/dovecot ] || missing+=(dovecot-imapd)
[ -x /usr/sbin/spamd ] || missing+=(spamd)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages for the tests: ${missing[*]}; install them: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages for the tests: ${missing[*]}..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
