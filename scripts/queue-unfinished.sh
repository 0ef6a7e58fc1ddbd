#!/bin/bash
# KTAP of the tests of a run_guest.sh --queue DIR that no guest finished:
# taken by a guest that then crashed or was stopped, or taken by none.
#   scripts/queue-unfinished.sh DIR >FILE.ktap
set -u
q=$1
total=$(cat "$q/total" 2>/dev/null || echo 0)
echo "TAP version 13"
k=0
for i in $(seq 0 $((total - 1))); do
	[ -e "$q/$i/done" ] && continue
	k=$((k + 1))
	echo "not ok $k $(cat "$q/$i/test" 2>/dev/null || echo "test $((i + 1)) of the selection") # never finished"
done
echo "1..$k"
