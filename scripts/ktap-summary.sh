#!/bin/bash
# Count KTAP results in the given files and print the closing line
# "N passed, N failed[, N skipped]". A file whose plan (1..N) promises more
# results than it holds (a crashed or timed-out run) counts the missing ones
# as failed. Exits 1 if anything failed.
set -u
pass=0 fail=0 skip=0
for f in "$@"; do
	if [ ! -s "$f" ]; then
		echo "# no results in $f"; fail=$((fail + 1)); continue
	fi
	read -r p fl s plan < <(awk '
		/^ok [0-9]+ .*# SKIP/ { s++; next }
		/^ok [0-9]+/ { p++; next }
		/^not ok [0-9]+/ { f++; next }
		/^1\.\.[0-9]+/ { plan += substr($1, 4) }
		END { print p + 0, f + 0, s + 0, plan + 0 }' "$f")
	missing=$((plan - p - fl - s))
	if [ "$missing" -gt 0 ]; then
		echo "# $f: $missing planned test(s) never reported"
		fl=$((fl + missing))
	fi
	pass=$((pass + p)); fail=$((fail + fl)); skip=$((skip + s))
done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
