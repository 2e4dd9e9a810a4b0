#!/usr/bin/env bash
# Fetches the sources of the open evaluation sets (issue 26; docs/design/evaluation-sets-plan.md §3) with the ordinary
# package clients, checks each file against its pinned sha256 and extracts it (dpkg-deb -x / tar; nothing is
# installed) under $RAGTIME_EVAL_SOURCES (default ../eval-sources beside the work tree, outside the repository).
# A file already there with the right sha256 is not fetched again. A missing pin or a mismatch fails loudly.
#
#   bash bench/fetch-eval-sources.sh            # → ../eval-sources/{debian-faq,django,python3-django,r-cran-tm}/
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${RAGTIME_EVAL_SOURCES:-$ROOT/../eval-sources}"
mkdir -p "$DEST/downloads"
DEST="$(cd "$DEST" && pwd)"
DL="$DEST/downloads"

# file  sha256  how to fetch it
PINS=(
  "debian-faq_11.1_all.deb 427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0 apt debian-faq=11.1"
  "debian-faq-zh-cn_11.1_all.deb 3545356b1aa04d87e91dd15e8406210cf5b4f476662e597897bcb42234591758 apt debian-faq-zh-cn=11.1"
  "django-5.2.19.tar.gz ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1 pip django==5.2.19"
  "python3-django_3%3a3.2.25-0+deb12u7_all.deb 9ad8ed29d9026207970777e194f658c39b3a7a96a932967f043503fc25bdc319 apt python3-django=3:3.2.25-0+deb12u7"
  "r-cran-tm_0.7-11-1_amd64.deb 483fa4e8c8fec74a36875470932b71c21ed2209bbab504f50844aca2d24cb51b apt r-cran-tm=0.7-11-1"
)

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

APT_UPDATED=0
fetch() {
  local file="$1" how="$2" what="$3"
  case "$how" in
    apt)
      if ! (cd "$DL" && apt-get download "$what" >/dev/null 2>&1); then
        if [ "$APT_UPDATED" = 0 ]; then
          APT_UPDATED=1
          echo "apt-get download $what failed; running apt-get update once" >&2
          apt-get update >/dev/null
          (cd "$DL" && apt-get download "$what" >/dev/null 2>&1) || { echo "error: apt-get download $what failed (is the version still in the archive? apt-cache policy ${what%%=*})" >&2; exit 1; }
        else
          echo "error: apt-get download $what failed" >&2
          exit 1
        fi
      fi
      ;;
    pip)
      python3 -m pip download --quiet --no-deps --no-binary :all: "$what" -d "$DL" >/dev/null \
        || { echo "error: pip download $what failed" >&2; exit 1; }
      ;;
  esac
  [ -f "$DL/$file" ] || { echo "error: fetching $what did not produce $file; found: $(ls "$DL")" >&2; exit 1; }
}

for pin in "${PINS[@]}"; do
  read -r file sha how what <<<"$pin"
  if [ ! -f "$DL/$file" ] || [ "$(sha_of "$DL/$file")" != "$sha" ]; then
    rm -f "$DL/$file"
    echo "fetching $what …" >&2
    fetch "$file" "$how" "$what"
  fi
  got="$(sha_of "$DL/$file")"
  if [ "$got" != "$sha" ]; then
    echo "error: $file has sha256 $got, pinned $sha; the registry changed the file — check it, then update the pin in bench/fetch-eval-sources.sh and the plan" >&2
    exit 1
  fi
done

# Extract afresh (so the tree is exactly the pinned files' content).
rm -rf "$DEST/debian-faq" "$DEST/django" "$DEST/python3-django" "$DEST/r-cran-tm"
mkdir -p "$DEST/debian-faq" "$DEST/django" "$DEST/python3-django" "$DEST/r-cran-tm"
dpkg-deb -x "$DL/debian-faq_11.1_all.deb" "$DEST/debian-faq"
dpkg-deb -x "$DL/debian-faq-zh-cn_11.1_all.deb" "$DEST/debian-faq"
tar -xzf "$DL/django-5.2.19.tar.gz" -C "$DEST/django" django-5.2.19/docs/releases django-5.2.19/docs/faq django-5.2.19/LICENSE
# Debian's own reports of the Django fixes it backported (bookworm-security): only the package's changelog is read.
dpkg-deb -x "$DL/python3-django_3%3a3.2.25-0+deb12u7_all.deb" "$DEST/python3-django"
# Reuters-21578 news (issue 42 §7, set news-en): only texts/crude and texts/acq of the R package are read.
dpkg-deb -x "$DL/r-cran-tm_0.7-11-1_amd64.deb" "$DEST/r-cran-tm"
echo "sources in $DEST: debian-faq/usr/share/doc/debian/FAQ, django/django-5.2.19/docs/{releases,faq}, python3-django/usr/share/doc/python3-django/changelog.Debian.gz, r-cran-tm/usr/lib/R/site-library/tm/texts/{crude,acq}" >&2
