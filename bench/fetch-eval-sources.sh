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
  # cli-pages (issue 42 §7): the man pages of these packages, rendered by the pinned mandoc (first pin).
  "mandoc_1.14.6-1+b1_amd64.deb af62386fcb99fbfe8813992d5623f5500339d8decee2c72994522366e078c01b apt mandoc=1.14.6-1+b1"
  "bind9-dnsutils_1%3a9.18.49-1~deb12u3_amd64.deb b233212daebef9f7018c229d69c57973caf60318b92a19383835f651e0bd3944 apt bind9-dnsutils=1:9.18.49-1~deb12u3"
  "coreutils_9.1-1_amd64.deb 61038f857e346e8500adf53a2a0a20859f4d3a3b51570cc876b153a2d51a3091 apt coreutils=9.1-1"
  "cron_3.0pl1-162_amd64.deb c1e12d9c993460e6396107668aa7ba79f8633decebb53aa6c38049584448be3f apt cron=3.0pl1-162"
  "curl_7.88.1-10+deb12u15_amd64.deb 0dd9b6bf7a0bd11af2d68a52ec44c2a223fa7c11f9104c36ce1047e1137d4a8f apt curl=7.88.1-10+deb12u15"
  "diffutils_1%3a3.8-4_amd64.deb 8bdfedc14c1035e3750e9f055ac9c1ecd9b5d05d9e6dc6466c4e9237eef407dd apt diffutils=1:3.8-4"
  "file_1%3a5.44-3_amd64.deb 2c57221bf8cc0ff5d2295ececb9215cc1b9ff9040dacb152c385bba3087ab1df apt file=1:5.44-3"
  "findutils_4.9.0-4_amd64.deb 5dd86bd0af4aa73f067dfd6b8339dd868f2dd84056aa79db29d1206d4fbc5e04 apt findutils=4.9.0-4"
  "git-man_1%3a2.39.5-0+deb12u3_all.deb 904dbd8dbc3db34c6780fb0abfe35816d4a90a490126ef0a055a77a0c5dcab82 apt git-man=1:2.39.5-0+deb12u3"
  "grep_3.8-5_amd64.deb 3264acea728df3c48a54f20e9291b965130e306b9d00adac76647049da7196df apt grep=3.8-5"
  "gzip_1.12-1_amd64.deb eabec1dde2834f72540d7b93fc5df2625f52611c06d93d61f5cdb12480e0e6a3 apt gzip=1.12-1"
  "htop_3.2.2-2_amd64.deb 03f3b6ed16e96621add9577c92349d7000d13b2ae341faa28a3dfe7f7a0ff7d2 apt htop=3.2.2-2"
  "iproute2_6.1.0-3_amd64.deb 1204b29e916e836267096d0b9d778106752f821ebde0d281539008b4386d9070 apt iproute2=6.1.0-3"
  "iputils-ping_3%3a20221126-1+deb12u1_amd64.deb 5a206d74e2147990e08b89d09a4655e59a17222e0513a309a48e16ed2281589b apt iputils-ping=3:20221126-1+deb12u1"
  "jq_1.6-2.1+deb12u3_amd64.deb c25f3fda201207ed98b1d63686f2d81b9dfeb99f1ab2d1d35fb3f7b6a1c107dc apt jq=1.6-2.1+deb12u3"
  "less_590-2.1~deb12u2_amd64.deb 3c4ee8ce5e0f625e1169da9584e309c375a8a68e22de5821461d14446825cc1a apt less=590-2.1~deb12u2"
  "lsof_4.95.0-1_amd64.deb e4b15cf8d0b9051cf7957e7ab29a67ca7d21f42ea1b2b7dad1b52e65d02d1408 apt lsof=4.95.0-1"
  "man-db_2.11.2-2_amd64.deb 4134d16ea0233ebe78b2d1d271194fcf49a69eb2850421b0f3d76055e221fcea apt man-db=2.11.2-2"
  "openssh-client_1%3a9.2p1-2+deb12u10_amd64.deb 42c250b8b9110382488c53c066a960bc564ddac2cb9e449f47b6cdbb5fc1cb60 apt openssh-client=1:9.2p1-2+deb12u10"
  "procps_2%3a4.0.2-3_amd64.deb d9d0e75779cb79af869181f17b93c5c263a2b89cac6a0193c436160a4483ddc1 apt procps=2:4.0.2-3"
  "psmisc_23.6-1_amd64.deb 9d02f654bdf280a6622a9b1371f7a1fa44546702d11991e438558bc259df7b69 apt psmisc=23.6-1"
  "rsync_3.5.0+ds1-0+deb12u1_amd64.deb 26ea59ef1c3d05595e9637002ace6f4e00181638b438ecad0f1cf1659ebb67ed apt rsync=3.5.0+ds1-0+deb12u1"
  "screen_4.9.0-4_amd64.deb c3b97223e12cb913b81f032e74322ea85456fa747b3cd9bc02eb17b2b990dfce apt screen=4.9.0-4"
  "sed_4.9-1+deb12u1_amd64.deb fd557efeee8aae4619c2cb7f68aadccb804322ad4a99ab048aaae5901d253885 apt sed=4.9-1+deb12u1"
  "sudo_1.9.13p3-1+deb12u4_amd64.deb ea9987f92630be504998516e1ed9c821c483131d0576ff35a09d6e7f8deff10f apt sudo=1.9.13p3-1+deb12u4"
  "systemd_252.39-1~deb12u2_amd64.deb 286f879c537bfba92e59d580c075ad20ab49020244c79634656850a306dd462b apt systemd=252.39-1~deb12u2"
  "tar_1.34+dfsg-1.2+deb12u1_amd64.deb 24fb92e98c2969171f81a8b589263d705f6b1670f95d121cd74c810d4605acc3 apt tar=1.34+dfsg-1.2+deb12u1"
  "tmux_3.3a-3_amd64.deb 6bd1558face5e145d66d72c9557cbc7ff5ad66701e94dcd568e6daf081269018 apt tmux=3.3a-3"
  "unzip_6.0-28+deb12u1_amd64.deb 1c27c879f4f7f056499c5393d422fd6c77ff6fbfa450c3f91f2f205ca788cc36 apt unzip=6.0-28+deb12u1"
  "util-linux_2.38.1-5+deb12u3_amd64.deb 8eb241ff24b2e1ee9c0373f4fc9bc728b85bf5966c1496154df7da01c0e42f34 apt util-linux=2.38.1-5+deb12u3"
  "wget_1.21.3-1+deb12u1_amd64.deb b389052d1d8a8cacec4f0380d9ee54e8082bfbebe374299be95b5286c9380f80 apt wget=1.21.3-1+deb12u1"
  "xz-utils_5.4.1-1+deb12u2_amd64.deb f99fc3fe4b4e5baecf5fd8b53853a82e1e71cb5ec187b36b0ddcf227a8961c8f apt xz-utils=5.4.1-1+deb12u2"
  "zip_3.0-13+deb12u1_amd64.deb 07cf47ed2bc6ad02702c489543eddf4901b6939fcfa4ef76439dd94f4d2b7294 apt zip=3.0-13+deb12u1"
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
# cli-pages (issue 42 §7): every package's man pages under cli-pages/, and mandoc (the renderer) under mandoc/.
rm -rf "$DEST/cli-pages" "$DEST/mandoc"
mkdir -p "$DEST/cli-pages" "$DEST/mandoc"
for pin in "${PINS[@]}"; do
  read -r file _sha _how what <<<"$pin"
  case "$what" in
    mandoc=*) dpkg-deb -x "$DL/$file" "$DEST/mandoc" ;;
    bind9-dnsutils=* | coreutils=* | cron=* | curl=* | diffutils=* | file=* | findutils=* | git-man=* | grep=* | gzip=* | htop=* | iproute2=* | iputils-ping=* | jq=* | less=* | lsof=* | man-db=* | openssh-client=* | procps=* | psmisc=* | rsync=* | screen=* | sed=* | sudo=* | systemd=* | tar=* | tmux=* | unzip=* | util-linux=* | wget=* | xz-utils=* | zip=*)
      dpkg-deb -x "$DL/$file" "$DEST/cli-pages" ;;
  esac
done
echo "cli-pages: man pages in $DEST/cli-pages/usr/share/man, rendered by $DEST/mandoc/usr/bin/mandoc" >&2
echo "sources in $DEST: debian-faq/usr/share/doc/debian/FAQ, django/django-5.2.19/docs/{releases,faq}, python3-django/usr/share/doc/python3-django/changelog.Debian.gz, r-cran-tm/usr/lib/R/site-library/tm/texts/{crude,acq}" >&2
