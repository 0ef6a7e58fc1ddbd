#!/bin/bash
# List the calls between the module's kernel/sroce_*.c files, from the
# objects of the last build (scripts/build-module.sh): for each file, the
# functions it defines that other files use, and which files use them.
# Static inline helpers do not appear: they are no calls.
#
#   scripts/xfile-calls.sh            per file: function <- users
#   scripts/xfile-calls.sh -e         edges: file -> file: functions
set -euo pipefail
cd "$(dirname "$0")/../kernel"

edges=false
[ "${1:-}" = -e ] && edges=true
ls sroce_*.o >/dev/null 2>&1 || { echo "build the module first" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in sroce_*.o; do
	[ "$o" = sroce.mod.o ] && continue
	f=${o%.o}
	nm "$o" | awk '$2 == "T" { print $3 }' | sort -u >"$tmp/$f.def"
	nm "$o" | awk '$1 == "U" { print $2 }' | sort -u >"$tmp/$f.use"
done

for d in "$tmp"/*.def; do
	f=$(basename "$d" .def)
	while read -r sym; do
		users=$(cd "$tmp" && grep -lx -- "$sym" ./*.use 2>/dev/null |
			sed 's|^\./||; s|\.use$||' | grep -vx "$f" | tr '\n' ' ' || true)
		[ -n "$users" ] || continue
		if $edges; then
			for u in $users; do
				echo "${u#sroce_} -> ${f#sroce_}: $sym"
			done
		else
			echo "${f#sroce_}: $sym <- ${users% }"
		fi
	done <"$d"
done | if $edges; then
	sort | awk -F': ' '{ if ($1 != last) { if (last != "") print line; line = $1 ":"; last = $1 } line = line " " $2 } END { if (last != "") print line }'
else
	cat
fi
