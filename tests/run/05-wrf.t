#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The WRF parser on rsl.error.0000 samples (data/README has the figures
# derived by hand): fixed and adaptive time-step lines, the ********** field,
# radiation/output steps, SUCCESS COMPLETE WRF.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

near() { # value expected
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-6) }'
}
wrf_field() { jq -r ".experiments[0].runs[0].wrf.$2" "$tmp/$1/results.json"; }
wrf_stat() { jq -r ".experiments[0].stats.$2.median" "$tmp/$1/results.json"; }

run numaplan run wrf --parse-only --wrf-dir "$DATA/wrf-fixed" -o "$tmp/f"
check "fixed-step sample parses: exit 0" [ "$RC" -eq 0 ]
check "results.json has the documented fields" schema_ok "$tmp/f/results.json"
check "10 steps of domain 1 (domain 2 lines ignored)" [ "$(wrf_field f steps)" -eq 10 ]
check "SUCCESS COMPLETE WRF seen" [ "$(wrf_field f success)" = true ]
check "radiation steps from namelist radt = 5: 2" \
	sh -c "[ '$(wrf_field f radiation_steps)' -eq 2 ] && [ '$(wrf_field f radiation_from)' = radt ]"
check "output steps after 'Timing for Writing': 2" [ "$(wrf_field f output_steps)" -eq 2 ]
check "mean s/step without the first: 11.5 / 9" near "$(wrf_stat f mean_step_s)" "$(awk 'BEGIN { printf "%.10f", 11.5 / 9 }')"
check "mean s/step without first, radiation, output: 1.0" near "$(wrf_stat f mean_step_plain_s)" 1.0
check "simulated-time speed 600 / 15 = 40" near "$(wrf_stat f speed)" 40
check "simulated seconds 10 x 60" near "$(wrf_field f simulated_s)" 600

run numaplan run wrf --parse-only --wrf-dir "$DATA/wrf-adaptive" -o "$tmp/a"
check "adaptive-step sample parses: exit 0" [ "$RC" -eq 0 ]
check "8 steps, adaptive form recognised" \
	sh -c "[ '$(wrf_field a steps)' -eq 8 ] && [ '$(wrf_field a adaptive)' = true ]"
check "one ********** step" [ "$(wrf_field a overflow_steps)" -eq 1 ]
check "mean without the first (overflow left out): 2.0" near "$(wrf_stat a mean_step_s)" 2.0
check "radiation by 1.5 x median (no namelist): 1 step" \
	sh -c "[ '$(wrf_field a radiation_steps)' -eq 1 ] && [ '$(wrf_field a radiation_from)' = '1.5 x median' ]"
check "mean without first and radiation: 1.5" near "$(wrf_stat a mean_step_plain_s)" 1.5
check "speed from the (dt=) values: 560 / 16 = 35" near "$(wrf_stat a speed)" 35

run numaplan run wrf --parse-only --wrf-dir "$DATA/wrf-crashed" -o "$tmp/c"
check "a run without SUCCESS COMPLETE WRF: exit 1" [ "$RC" -eq 1 ]
check "... marked failed with the reason" \
	jqt '.experiments[0].runs[0] | .status == "failed" and (.error|test("SUCCESS COMPLETE WRF"))' "$tmp/c/results.json"
check "... and not averaged" jqt '.experiments[0].stats == {}' "$tmp/c/results.json"

mkdir -p "$tmp/empty"
run numaplan run wrf --parse-only --wrf-dir "$tmp/empty" -o "$tmp/e"
check "no rsl.error.0000: exit 2 naming the file" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'rsl.error.0000'" "$ERR"
run numaplan run wrf --local --wrf-dir "$tmp/empty" -o "$tmp/e2"
check "no wrf.exe: exit 2 with a clear message" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'no executable wrf.exe'" "$ERR"
run numaplan run wrf --local -o "$tmp/e3"
check "wrf without --wrf-dir: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q -- '--wrf-dir'" "$ERR"
done_testing
