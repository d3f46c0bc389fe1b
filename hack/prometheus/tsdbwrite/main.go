// Command tsdbwrite writes the history of a fleet of steady VMs as Prometheus TSDB blocks, directly with
// github.com/prometheus/prometheus/tsdb (the BlockWriter that `promtool tsdb create-blocks-from openmetrics` uses,
// cmd/promtool/backfill.go), for rightsize's benchmark at a scale where OpenMetrics text is not an option (10,000
// VMs x 14 days x 1 minute is about two billion samples, some 300 GB of text).
//
// The series are those the virt-handler metrics double writes (tests/doubles/virt_handler_metrics.py: _values and
// Counters.advance), narrowed to what rightsize reads, with KubeVirt v1.9.0's names and labels
// (pkg/monitoring/metrics/virt-handler/domainstats: node, namespace, name; the vCPU series' id and state):
//
//	kubevirt_vmi_cpu_usage_seconds_total   vcpu time x (1 + HYPERVISOR_SHARE)
//	kubevirt_vmi_vcpu_seconds_total        vcpu time / vCPUs, one series per vCPU (id, state="running")
//	kubevirt_vmi_memory_resident_bytes     min(memory, used) + QEMU_OVERHEAD
//	kubevirt_vmi_memory_domain_bytes       memory
//	and, for a guest with balloon statistics:
//	kubevirt_vmi_memory_available_bytes    memory
//	kubevirt_vmi_memory_usable_bytes       memory - used
//	kubevirt_vmi_memory_swap_in_traffic_bytes, _swap_out_traffic_bytes, kubevirt_vmi_memory_pgmajfault_total: 0
//
// where vcpu time = (t - start) x vCPUs x cpu share (the double integrates the same constant minute by minute) and
// used = memory x memory share. Only steady profiles (constant shares), which is what the benchmark's fleet has.
//
// With -rules it also writes the series rightsize's own recording rules record (kubectl_instancetype/instancetype/
// rightsize_rules.py, `rightsize --print-rules rulefile`): each rule's value at every multiple of its group's
// interval (5 minutes, 1 hour, 1 day) within [-start, -end], computed as Prometheus v0.316.0's engine computes it (rate:
// promql/functions.go extrapolatedRate; sum: util/kahansum; the other functions and operators by their definitions),
// with the labels the rule's expression keeps. A real Prometheus evaluating the same rule file at those times gives
// the same samples: tests/integration/test_tsdbwrite.py holds it to that. The groups' evaluation times here are the
// "perfect" intervals (offset 0; the daily group's at -daily-times when given); a live Prometheus offsets each
// group by a hash of its name and file (rules/group.go EvalTimestamp), the same values at other instants. The daily
// roll-ups are computed from the hourly points of the day before, kept from block to block, and the roll-ups over
// several days (2, 4, 8 and 16) from the daily points of the days before, kept likewise. -raw-from writes the raw series only from that
// time on (the recorded ones still cover the whole range): the benchmark's 14 days of recorded series with less raw
// history.
//
// Input on stdin, one VM a line, tab-separated: namespace, name, node, vCPUs, memory bytes, cpu share, memory
// share, balloon (1 or 0). Usage: tsdbwrite -out DIR -start UNIX -end UNIX -step SECONDS [-block HOURS] [-rules]
// [-raw-from UNIX] [-daily-times UNIX,...]. Writes one block per -block hours (aligned to -start) and prints the
// number of samples written.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/prometheus/prometheus/util/kahansum"
)

// tests/doubles/virt_handler_metrics.py
const (
	hypervisorShare = 0.05
	qemuOverhead    = 180 * 1024 * 1024
	// promtool's maxSamplesInAppender (cmd/promtool/backfill.go): commit every so many samples to bound memory
	maxSamplesInAppender = 5000
)

type vm struct {
	namespace, name, node string
	vcpus                 int
	memory, cpu, used     float64
	balloon               bool
}

type series struct {
	labels labels.Labels
	value  func(t float64) float64
}

func (v vm) series(start float64) []series {
	base := func(name string, extra ...string) labels.Labels {
		return labels.FromStrings(append([]string{"__name__", name, "namespace", v.namespace, "name", v.name, "node", v.node}, extra...)...)
	}
	constant := func(x float64) func(float64) float64 { return func(float64) float64 { return x } }
	vcpuTime := func(t float64) float64 { return (t - start) * float64(v.vcpus) * v.cpu }
	out := []series{
		{base("kubevirt_vmi_cpu_usage_seconds_total"), func(t float64) float64 { return vcpuTime(t) * (1 + hypervisorShare) }},
		{base("kubevirt_vmi_memory_resident_bytes"), constant(math.Min(v.memory, v.used) + qemuOverhead)},
		{base("kubevirt_vmi_memory_domain_bytes"), constant(v.memory)},
	}
	for i := 0; i < v.vcpus; i++ {
		out = append(out, series{
			base("kubevirt_vmi_vcpu_seconds_total", "id", strconv.Itoa(i), "state", "running"),
			func(t float64) float64 { return vcpuTime(t) / float64(v.vcpus) },
		})
	}
	if v.balloon {
		out = append(out,
			series{base("kubevirt_vmi_memory_available_bytes"), constant(v.memory)},
			series{base("kubevirt_vmi_memory_usable_bytes"), constant(v.memory - v.used)},
			series{base("kubevirt_vmi_memory_swap_in_traffic_bytes"), constant(0)},
			series{base("kubevirt_vmi_memory_swap_out_traffic_bytes"), constant(0)},
			series{base("kubevirt_vmi_memory_pgmajfault_total"), constant(0)},
		)
	}
	return out
}

// The recording rules' names (kubectl_instancetype/instancetype/rightsize_rules.py) and groups' intervals
const (
	ruleInterval   = 300
	hourlyInterval = 3600
	recCPU         = "namespace_name:kubevirt_vmi_cpu_usage_seconds:rate5m"
	recMemory      = "namespace_name:kubevirt_vmi_memory_used_bytes:sum"
	recDomain      = "namespace_name:kubevirt_vmi_memory_domain_bytes:max"
	recVCPUs       = "namespace_name:kubevirt_vmi_vcpu_seconds:count"
	recHeadroom    = "namespace_name:kubevirt_vmi_memory_headroom_ratio:sum"
	recLowAvail    = "namespace_name:kubevirt_vmi_memory_headroom_ratio:guest_memory_available_low"
)

// hourly roll-ups: record name, the 5-minute series it rolls up, the function, its range in seconds
var hourly = []struct {
	name, of, fn string
	window       float64
}{
	{"namespace_name:kubevirt_vmi_cpu_usage_seconds:max1h_rate5m", recCPU, "max", 3600},
	{"namespace_name:kubevirt_vmi_cpu_usage_seconds:count1h_rate5m", recCPU, "count", 3600},
	{"namespace_name:kubevirt_vmi_memory_used_bytes:max1h_sum", recMemory, "max", 3600},
	{"namespace_name:kubevirt_vmi_memory_headroom_ratio:min1h_sum", recHeadroom, "min", 3600},
	{"namespace_name:kubevirt_vmi_memory_domain_bytes:changes65m_max", recDomain, "changes", 3900},
	{"namespace_name:kubevirt_vmi_vcpu_seconds:changes65m_count", recVCPUs, "changes", 3900},
}

// daily roll-ups of the hourly ones: record name, the hourly roll-up it rolls up (its range: one day), the function
var daily = []struct{ name, of, fn string }{
	{"namespace_name:kubevirt_vmi_cpu_usage_seconds:max1d_rate5m", "namespace_name:kubevirt_vmi_cpu_usage_seconds:max1h_rate5m", "max"},
	{"namespace_name:kubevirt_vmi_cpu_usage_seconds:count1d_rate5m", "namespace_name:kubevirt_vmi_cpu_usage_seconds:count1h_rate5m", "sum"},
	{"namespace_name:kubevirt_vmi_memory_used_bytes:max1d_sum", "namespace_name:kubevirt_vmi_memory_used_bytes:max1h_sum", "max"},
	{"namespace_name:kubevirt_vmi_memory_headroom_ratio:min1d_sum", "namespace_name:kubevirt_vmi_memory_headroom_ratio:min1h_sum", "min"},
}

// the cluster-level series: each hourly evaluation (vector(1)), and the time of each daily evaluation that saw the
// 24 hourly evaluations of its day (vector(time()) and on () count_over_time(evaluated[1d]) == 24)
const (
	dailyInterval = 86400
	recEvaluated  = "cluster:kubectl_instancetype_rightsize_1h:evaluated"
	recComplete   = "cluster:kubectl_instancetype_rightsize_1d:complete_time"
)

// dailyTimes are the daily group's evaluation times (-daily-times; by default the multiples of a day within the
// history): a live server's are offset by a hash of the group (rules/group.go EvalTimestamp), and a daily evaluation
// missed while it was down, or a daily group applied after the others, leaves some out.
var dailyTimes []float64

// hourlyHistory holds each VM's hourly roll-ups' points of the day before the block being written (by VM, then by
// the series' labels), for the daily roll-ups: blocks are written in time order, each VM's once per block.
var hourlyHistory = map[string]map[string]*recorded{}

// dailyHistory holds each VM's daily roll-ups' points of the last 16 days before the block being written, for the
// roll-ups over several days (rightsize_rules.LEVELS: the daily group's `max_over_time(...:max1d_rate5m[8d])` and
// the like, named with the days in place of the 1d)
var dailyHistory = map[string]map[string]*recorded{}

// levels are the days the daily group's roll-ups over several days span (rightsize_rules.LEVELS), and
// recLevelComplete their completeness series' names: the time of each daily evaluation that saw the last n
// daily evaluations complete (vector(time()) and on () count_over_time(complete_time[nd]) == n)
var levels = []int{2, 4, 8, 16}

func recLevelComplete(n int) string {
	return "cluster:kubectl_instancetype_rightsize_" + strconv.Itoa(n) + "d:complete_time"
}

type point struct {
	t float64
	v float64
}

// rawTimes are the raw samples' times within (t-window, t]: the range a PromQL range selector reads (open at its
// start since Prometheus 3.0).
func rawTimes(t, window, start, end, step float64) []float64 {
	// the raw samples are at the multiples of step within [start, end] (writeBlock)
	var out []float64
	for s := math.Ceil(math.Max(start, t-window)/step) * step; s <= t && s <= end; s += step {
		if s > t-window {
			out = append(out, s)
		}
	}
	return out
}

// rate is Prometheus v0.316.0's extrapolatedRate (promql/functions.go) for a float counter without resets and
// without start timestamps, over a range of window seconds ending at t; ok is false where it returns nothing (fewer
// than two samples).
func rate(points []point, t, window float64) (float64, bool) {
	if len(points) < 2 {
		return 0, false
	}
	rangeStart := int64(t*1000) - int64(window*1000)
	rangeEnd := int64(t * 1000)
	firstT, lastT := int64(points[0].t*1000), int64(points[len(points)-1].t*1000)
	numSamplesMinusOne := len(points) - 1
	resultFloat := points[numSamplesMinusOne].v - points[0].v
	for i, curr := range points[1:] {
		if curr.v < points[i].v {
			resultFloat += points[i].v
		}
	}
	durationToStart := float64(firstT-rangeStart) / 1000
	durationToEnd := float64(rangeEnd-lastT) / 1000
	sampledInterval := float64(lastT-firstT) / 1000
	averageDurationBetweenSamples := sampledInterval / float64(numSamplesMinusOne)
	extrapolationThreshold := averageDurationBetweenSamples * 1.1
	if durationToStart >= extrapolationThreshold {
		durationToStart = averageDurationBetweenSamples / 2
	}
	durationToZero := durationToStart
	if resultFloat > 0 && points[0].v >= 0 {
		durationToZero = sampledInterval * (points[0].v / resultFloat)
	}
	if durationToZero < durationToStart {
		durationToStart = durationToZero
	}
	if durationToEnd >= extrapolationThreshold {
		durationToEnd = averageDurationBetweenSamples / 2
	}
	factor := 1.0
	if sampledInterval != 0 {
		factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval
	}
	factor /= window
	return resultFloat * factor, true
}

// sum is the sum aggregation's float arithmetic (promql/engine.go aggregation: the first value, then
// kahansum.Inc, then the compensation added).
func sum(values []float64) float64 {
	value, c := values[0], 0.0
	for _, v := range values[1:] {
		value, c = kahansum.Inc(v, value, c)
	}
	return value + c
}

type recorded struct {
	labels labels.Labels
	points []point
}

// record computes one VM's 5-minute and hourly recorded series at the multiples of their intervals within [start,
// end] and [from, to): what the rule file's evaluation stores then. Block by block, so that 14 days of 10,000 VMs
// are never in memory at once.
func (v vm) record(start, end, step, from, to float64) []recorded {
	all := v.series(start)
	byName := map[string][]series{}
	for _, s := range all {
		name := s.labels.Get("__name__")
		byName[name] = append(byName[name], s)
	}
	at := func(s series, times []float64) []point {
		out := make([]point, len(times))
		for i, t := range times {
			out[i] = point{t, s.value(t)}
		}
		return out
	}
	sumRate := func(name string, t, window float64) (float64, bool) {
		var values []float64
		for _, s := range byName[name] {
			if r, ok := rate(at(s, rawTimes(t, window, start, end, step)), t, window); ok {
				values = append(values, r)
			}
		}
		if len(values) == 0 {
			return 0, false
		}
		return sum(values), true
	}
	instant := func(name string) float64 { return byName[name][0].value(start) } // the gauges are constant
	rec := func(name string, extra ...string) labels.Labels {
		return labels.FromStrings(append([]string{"__name__", name, "namespace", v.namespace, "name", v.name}, extra...)...)
	}
	cpuSource, cpuMetric := "vcpu", "kubevirt_vmi_vcpu_seconds_total"
	if len(byName[cpuMetric]) == 0 {
		cpuSource, cpuMetric = "cpu", "kubevirt_vmi_cpu_usage_seconds_total"
	}
	memorySource := "resident"
	var memory float64
	if v.balloon {
		memorySource = "balloon"
		memory = instant("kubevirt_vmi_memory_available_bytes") - instant("kubevirt_vmi_memory_usable_bytes")
	} else if resident, domain := instant("kubevirt_vmi_memory_resident_bytes"), instant("kubevirt_vmi_memory_domain_bytes"); resident < domain {
		memory = resident
	} else {
		memory = domain
	}
	five := map[string]*recorded{
		recCPU:    {labels: rec(recCPU, "source", cpuSource)},
		recMemory: {labels: rec(recMemory, "source", memorySource)},
		recDomain: {labels: rec(recDomain)},
		recVCPUs:  {labels: rec(recVCPUs)},
	}
	if v.balloon {
		five[recHeadroom] = &recorded{labels: rec(recHeadroom)}
		five[recLowAvail] = &recorded{labels: rec(recLowAvail)}
	}
	// the 5-minute points of the 65 minutes before from too: the first hourly roll-ups of the block read them
	for t := math.Ceil(math.Max(start, from-hourlyInterval-ruleInterval)/ruleInterval) * ruleInterval; t <= end && t < to; t += ruleInterval {
		if r, ok := sumRate(cpuMetric, t, 300); ok {
			five[recCPU].points = append(five[recCPU].points, point{t, r})
		}
		five[recMemory].points = append(five[recMemory].points, point{t, memory})
		five[recDomain].points = append(five[recDomain].points, point{t, instant("kubevirt_vmi_memory_domain_bytes")})
		if n := len(byName["kubevirt_vmi_vcpu_seconds_total"]); n > 0 {
			five[recVCPUs].points = append(five[recVCPUs].points, point{t, float64(n)})
		}
		if !v.balloon {
			continue
		}
		headroom := instant("kubevirt_vmi_memory_usable_bytes") / instant("kubevirt_vmi_memory_available_bytes")
		five[recHeadroom].points = append(five[recHeadroom].points, point{t, headroom})
		// KubeVirtVMGuestMemoryAvailableLow's condition: headroom < 0.03 and swap rate30m < 2048 and major faults
		// rate30m < 1 (the double's counters stay at zero); KubeVirtVMGuestMemoryPressure's needs faults or swap
		// traffic, which these steady VMs never have
		swapIn, ok1 := sumRate("kubevirt_vmi_memory_swap_in_traffic_bytes", t, 1800)
		swapOut, ok2 := sumRate("kubevirt_vmi_memory_swap_out_traffic_bytes", t, 1800)
		faults, ok3 := sumRate("kubevirt_vmi_memory_pgmajfault_total", t, 1800)
		if headroom < 0.03 && ok1 && ok2 && ok3 && swapIn+swapOut < 2048 && faults < 1 {
			five[recLowAvail].points = append(five[recLowAvail].points, point{t, headroom})
		}
	}
	var out []recorded
	for _, name := range []string{recCPU, recMemory, recDomain, recVCPUs, recHeadroom, recLowAvail} {
		r := five[name]
		if r == nil {
			continue
		}
		kept := recorded{labels: r.labels}
		for _, p := range r.points {
			if p.t >= from {
				kept.points = append(kept.points, p)
			}
		}
		if len(kept.points) > 0 {
			out = append(out, kept)
		}
	}
	mine := hourlyHistory[v.namespace+"/"+v.name]
	if mine == nil {
		mine = map[string]*recorded{}
		hourlyHistory[v.namespace+"/"+v.name] = mine
	}
	for _, h := range hourly {
		source := five[h.of]
		if source == nil || len(source.points) == 0 {
			continue
		}
		b := labels.NewBuilder(source.labels)
		b.Set("__name__", h.name)
		r := recorded{labels: b.Labels()}
		for t := math.Ceil(math.Max(start, from)/hourlyInterval) * hourlyInterval; t <= end && t < to; t += hourlyInterval {
			in := within(source.points, t, h.window)
			if len(in) == 0 {
				continue
			}
			var value float64
			switch h.fn {
			case "count":
				value = float64(len(in))
			case "changes":
				// the rule is `changes(...[65m]) > 0`: recorded only when the size changed
				if value = changes(in); value == 0 {
					continue
				}
			default:
				value = fold(h.fn, in)
			}
			r.points = append(r.points, point{t, value})
		}
		if len(r.points) > 0 {
			out = append(out, r)
			h := mine[r.labels.String()]
			if h == nil {
				h = &recorded{labels: r.labels}
				mine[r.labels.String()] = h
			}
			h.points = append(h.points, r.points...)
		}
	}
	// the daily roll-ups at the multiples of a day within the block: over the hourly points of (t - 1d, t]
	days := dailyHistory[v.namespace+"/"+v.name]
	if days == nil {
		days = map[string]*recorded{}
		dailyHistory[v.namespace+"/"+v.name] = days
	}
	keys := make([]string, 0, len(mine))
	for key := range mine {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, d := range daily {
		for _, key := range keys {
			h := mine[key]
			if h.labels.Get("__name__") != d.of {
				continue
			}
			b := labels.NewBuilder(h.labels)
			b.Set("__name__", d.name)
			r := recorded{labels: b.Labels()}
			for _, t := range dailyTimes {
				if t < math.Max(start, from) || t > end || t >= to {
					continue
				}
				if in := within(h.points, t, dailyInterval); len(in) > 0 {
					r.points = append(r.points, point{t, fold(d.fn, in)})
				}
			}
			if len(r.points) > 0 {
				out = append(out, r)
			}
			// the roll-ups over the last 2, 4, 8 and 16 days at the same times, over the daily points of
			// (t - days, t], this block's and those kept from the blocks before
			kept := days[r.labels.String()]
			if kept == nil {
				kept = &recorded{labels: r.labels}
				days[r.labels.String()] = kept
			}
			kept.points = append(kept.points, r.points...)
			for _, n := range levels {
				b := labels.NewBuilder(r.labels)
				b.Set("__name__", strings.Replace(d.name, "1d_", strconv.Itoa(n)+"d_", 1))
				l := recorded{labels: b.Labels()}
				for _, p := range r.points {
					l.points = append(l.points, point{p.t, fold(d.fn, within(kept.points, p.t, float64(n)*dailyInterval))})
				}
				if len(l.points) > 0 {
					out = append(out, l)
				}
			}
			// keep the daily points a roll-up over days of a later block reads
			old := kept.points[:0]
			for _, p := range kept.points {
				if p.t > to-float64(levels[len(levels)-1])*dailyInterval {
					old = append(old, p)
				}
			}
			kept.points = old
		}
	}
	// keep the hourly points a daily roll-up of a later block reads: those of the last day
	for _, h := range mine {
		kept := h.points[:0]
		for _, p := range h.points {
			if p.t > to-dailyInterval {
				kept = append(kept, p)
			}
		}
		h.points = kept
	}
	return out
}

// cluster gives the cluster-level series the hourly and daily groups record within [start, end] and [from, to).
func cluster(start, end, from, to float64) []recorded {
	evaluated := recorded{labels: labels.FromStrings("__name__", recEvaluated)}
	first := math.Ceil(start/hourlyInterval) * hourlyInterval
	for t := math.Ceil(math.Max(start, from)/hourlyInterval) * hourlyInterval; t <= end && t < to; t += hourlyInterval {
		evaluated.points = append(evaluated.points, point{t, 1})
	}
	// every complete daily evaluation of the history (those before the block too: the roll-ups over several days'
	// completeness counts them)
	var completed []point
	for _, t := range dailyTimes {
		if t > end {
			continue
		}
		// the hourly evaluations of (t - 1d, t]: the multiples of an hour within [start, end]
		hours := 0
		for h := math.Max(first, math.Floor((t-dailyInterval)/hourlyInterval)*hourlyInterval+hourlyInterval); h <= t && h <= end; h += hourlyInterval {
			hours++
		}
		if hours == 24 {
			completed = append(completed, point{t, t})
		}
	}
	inBlock := func(t float64) bool { return t >= math.Max(start, from) && t <= end && t < to }
	complete := recorded{labels: labels.FromStrings("__name__", recComplete)}
	for _, p := range completed {
		if inBlock(p.t) {
			complete.points = append(complete.points, p)
		}
	}
	all := []recorded{evaluated, complete}
	for _, n := range levels {
		r := recorded{labels: labels.FromStrings("__name__", recLevelComplete(n))}
		for _, t := range dailyTimes {
			if inBlock(t) && len(within(completed, t, float64(n)*dailyInterval)) == n {
				r.points = append(r.points, point{t, t})
			}
		}
		all = append(all, r)
	}
	var out []recorded
	for _, r := range all {
		if len(r.points) > 0 {
			out = append(out, r)
		}
	}
	return out
}

func readFleet() ([]vm, error) {
	var out []vm
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		f := strings.Split(scanner.Text(), "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("expected 8 tab-separated fields, got %q", scanner.Text())
		}
		vcpus, err1 := strconv.Atoi(f[3])
		memory, err2 := strconv.ParseFloat(f[4], 64)
		cpu, err3 := strconv.ParseFloat(f[5], 64)
		share, err4 := strconv.ParseFloat(f[6], 64)
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return nil, fmt.Errorf("line %q: %w", scanner.Text(), err)
			}
		}
		used := memory * math.Min(1, math.Max(0, share))
		out = append(out, vm{f[0], f[1], f[2], vcpus, memory, math.Min(1, math.Max(0, cpu)), used, f[7] == "1"})
	}
	return out, scanner.Err()
}

func writeBlock(dir string, fleet []vm, withRules bool, start, end, from, to, step, rawFrom float64) (int, error) {
	blockMs := int64((to - from) * 1000)
	// promtool's trick (backfill.go): a head twice the block's size accepts every sample of the block in any order
	w, err := tsdb.NewBlockWriter(slog.New(slog.DiscardHandler), dir, 2*blockMs)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	b := newBatch(w)
	first := math.Ceil(math.Max(from, rawFrom)/step) * step
	if withRules {
		for _, r := range cluster(start, end, from, to) {
			var ref storage.SeriesRef
			for _, p := range r.points {
				if ref, err = b.add(ref, r.labels, p.t, p.v); err != nil {
					return 0, err
				}
			}
		}
	}
	for _, v := range fleet {
		if withRules {
			for _, r := range v.record(start, end, step, from, to) {
				var ref storage.SeriesRef
				for _, p := range r.points {
					if p.t < from || p.t >= to {
						continue
					}
					if ref, err = b.add(ref, r.labels, p.t, p.v); err != nil {
						return 0, err
					}
				}
			}
		}
		for _, s := range v.series(start) {
			var ref storage.SeriesRef
			for t := first; t < to; t += step {
				if ref, err = b.add(ref, s.labels, t, s.value(t)); err != nil {
					return 0, err
				}
			}
			if err := b.commitIfFull(); err != nil {
				return 0, err
			}
		}
	}
	return b.flush()
}

// batch appends samples to a BlockWriter and commits every maxSamplesInAppender of them, as promtool's backfill
// does (cmd/promtool/backfill.go createBlocks), so that memory stays bounded.
type batch struct {
	w                *tsdb.BlockWriter
	ctx              context.Context
	app              storage.Appender
	samples, pending int
}

func newBatch(w *tsdb.BlockWriter) *batch {
	ctx := context.Background()
	return &batch{w: w, ctx: ctx, app: w.Appender(ctx)}
}

// add appends one sample at t (Unix seconds).
func (b *batch) add(ref storage.SeriesRef, l labels.Labels, t, v float64) (storage.SeriesRef, error) {
	ref, err := b.app.Append(ref, l, int64(t)*1000, v)
	if err != nil {
		return 0, fmt.Errorf("add sample: %w", err)
	}
	b.samples++
	b.pending++
	return ref, nil
}

func (b *batch) commitIfFull() error {
	if b.pending < maxSamplesInAppender {
		return nil
	}
	if err := b.app.Commit(); err != nil {
		return err
	}
	b.app = b.w.Appender(b.ctx)
	b.pending = 0
	return nil
}

// flush commits what is left, writes the block and returns the number of samples written.
func (b *batch) flush() (int, error) {
	if err := b.app.Commit(); err != nil {
		return 0, err
	}
	if _, err := b.w.Flush(b.ctx); err != nil {
		return 0, err
	}
	return b.samples, nil
}

// headRange is Prometheus's head block and chunk range (--storage.tsdb.min-block-duration, 2h): the head cuts a
// series' chunks at multiples of it (tsdb/head_append.go appendPreprocessor: rangeForTimestamp) and writes a block of
// each such range (tsdb/db.go compactHead); compaction copies chunks as they are (tsdb/compact.go PopulateBlock:
// overlapping chunks only are merged), so a compacted block still holds 2h chunks: a 5-minute series 24 samples per
// chunk, an hourly one 2.
const headRange = 2 * 3600 * 1000 // milliseconds

// compactedLayout gives the blocks, [mint, maxt) in milliseconds, a Prometheus holds once its compactor is done with
// the 2h blocks its head wrote over [mint, maxt) (the first from the first sample, then at multiples of 2h), with
// --storage.tsdb.max-block-duration maxBlock: the compaction ranges are tsdb.ExponentialBlockRanges(2h, 10, 3)
// (tsdb/db.go validateOpts) cut at maxBlock (tsdb/db.go open), and each step merges the group the leveled
// compactor's plan picks (tsdb/compact.go planClass, selectDirs, splitByRange: the newest block is never
// compacted; a group is compacted when it fills its range or ends before the newest block starts).
func compactedLayout(mint, maxt, maxBlock int64) [][2]int64 {
	var blocks [][2]int64
	for from := mint; from < maxt; {
		to := min((from/headRange+1)*headRange, maxt)
		blocks = append(blocks, [2]int64{from, to})
		from = to
	}
	var ranges []int64
	for r := int64(headRange); r <= maxBlock && len(ranges) < 10; r *= 3 {
		ranges = append(ranges, r)
	}
	for {
		first, last := plan(blocks, ranges)
		if last <= first {
			return blocks
		}
		merged := [2]int64{blocks[first][0], blocks[last-1][1]}
		blocks = append(append(append([][2]int64{}, blocks[:first]...), merged), blocks[last:]...)
	}
}

// plan is tsdb/compact.go planClass and selectDirs over blocks sorted by time, without overlaps or tombstones: the
// blocks [first, last) to compact into one (none: last <= first).
func plan(blocks [][2]int64, ranges []int64) (int, int) {
	ds := blocks[:max(len(blocks)-1, 0)] // the newest block is left out
	if len(ranges) < 2 || len(ds) < 1 {
		return 0, 0
	}
	highTime := ds[len(ds)-1][0]
	for _, iv := range ranges[1:] {
		// splitByRange: groups of consecutive blocks within one range aligned to iv
		for i := 0; i < len(ds); {
			t0 := iv * (ds[i][0] / iv)
			if ds[i][1] > t0+iv {
				i++
				continue
			}
			j := i
			for ; j < len(ds) && ds[j][1] <= t0+iv; j++ {
			}
			if (ds[j-1][1]-ds[i][0] == iv || ds[j-1][1] <= highTime) && j-i > 1 {
				return i, j
			}
			i = j
		}
	}
	return 0, 0
}

// writeTimeMajor writes the block [from, to) as compactedLayout places it: a head whose chunk range is headRange,
// every series appended minute by minute (the head refuses samples older than half its chunk range behind its
// newest, tsdb/head_append.go appendableMinValidTime, so all series advance together), then one block of it all
// (BlockWriter.Flush): the block the compactor makes of the 2h blocks the head would have written.
func writeTimeMajor(dir string, fleet []vm, withRules bool, start, end, from, to, step, rawFrom float64) (int, error) {
	w, err := tsdb.NewBlockWriter(slog.New(slog.DiscardHandler), dir, headRange)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	type cursor struct {
		labels labels.Labels
		points []point
		ref    storage.SeriesRef
		next   int
	}
	type raw struct {
		s   series
		ref storage.SeriesRef
	}
	var recs []*cursor
	var raws []*raw
	if withRules {
		for _, r := range cluster(start, end, from, to) {
			recs = append(recs, &cursor{labels: r.labels, points: r.points})
		}
	}
	for _, v := range fleet {
		if withRules {
			for _, r := range v.record(start, end, step, from, to) {
				c := &cursor{labels: r.labels}
				for _, p := range r.points {
					if p.t >= from && p.t < to {
						c.points = append(c.points, p)
					}
				}
				recs = append(recs, c)
			}
		}
		for _, s := range v.series(start) {
			raws = append(raws, &raw{s: s})
		}
	}
	b := newBatch(w)
	first := math.Ceil(math.Max(from, rawFrom)/step) * step
	for t := math.Ceil(from/step) * step; t < to; t += step {
		for _, c := range recs {
			for ; c.next < len(c.points) && c.points[c.next].t <= t; c.next++ {
				p := c.points[c.next]
				if c.ref, err = b.add(c.ref, c.labels, p.t, p.v); err != nil {
					return 0, err
				}
			}
		}
		if t >= first {
			for _, r := range raws {
				if r.ref, err = b.add(r.ref, r.s.labels, t, r.s.value(t)); err != nil {
					return 0, err
				}
			}
		}
		if err := b.commitIfFull(); err != nil {
			return 0, err
		}
	}
	return b.flush()
}

func main() {
	out := flag.String("out", "", "the TSDB folder to write blocks into")
	start := flag.Int64("start", 0, "the first sample's time (Unix seconds; every VM starts then)")
	end := flag.Int64("end", 0, "the last sample's time (Unix seconds, inclusive)")
	step := flag.Int64("step", 60, "seconds between samples")
	block := flag.Int64("block", 24, "hours per block")
	withRules := flag.Bool("rules", false, "also write rightsize's recorded series (5-minute and hourly)")
	rawFrom := flag.Int64("raw-from", 0, "write the raw series only from this time (Unix seconds; default -start)")
	maxBlock := flag.Int64("max-block-duration", 0, "hours: write the blocks a Prometheus with this "+
		"--storage.tsdb.max-block-duration leaves once it has compacted its 2h head blocks (-block is not used)")
	times := flag.String("daily-times", "", "with -rules: the daily group's evaluation times, Unix seconds, "+
		"comma-separated (default: every multiple of a day within the history)")
	flag.Parse()
	if *out == "" || *end <= *start || *step <= 0 || *block <= 0 {
		fmt.Fprintln(os.Stderr, "usage: tsdbwrite -out DIR -start UNIX -end UNIX -step SECONDS [-block HOURS] < fleet.tsv")
		os.Exit(2)
	}
	fleet, err := readFleet()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if *times == "" {
		for t := math.Ceil(float64(*start)/dailyInterval) * dailyInterval; t <= float64(*end); t += dailyInterval {
			dailyTimes = append(dailyTimes, t)
		}
	} else {
		for _, field := range strings.Split(*times, ",") {
			t, err := strconv.ParseInt(field, 10, 64)
			if err != nil {
				fmt.Fprintln(os.Stderr, "error: -daily-times:", err)
				os.Exit(2)
			}
			dailyTimes = append(dailyTimes, float64(t))
		}
	}
	if *rawFrom < *start {
		*rawFrom = *start
	}
	// the blocks to write, in seconds, and their writer: the compacted layout a real server holds, or fixed blocks
	type span struct{ from, to float64 }
	var spans []span
	write := writeBlock
	if *maxBlock > 0 {
		for _, b := range compactedLayout(*start*1000, *end*1000+1, *maxBlock*3600*1000) {
			spans = append(spans, span{float64(b[0]) / 1000, float64(b[1]) / 1000})
		}
		write = writeTimeMajor
	} else {
		last := float64(*end) + 1
		for from := float64(*start); from < last; from += float64(*block * 3600) {
			spans = append(spans, span{from, math.Min(from+float64(*block*3600), last)})
		}
	}
	total := 0
	for _, b := range spans {
		n, err := write(*out, fleet, *withRules, float64(*start), float64(*end), b.from, b.to, float64(*step), float64(*rawFrom))
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		total += n
	}
	fmt.Println(total)
}

// within is what a range selector [window] at t reads of points: the values in (t - window, t].
func within(points []point, t, window float64) []float64 {
	var in []float64
	for _, p := range points {
		if p.t > t-window && p.t <= t {
			in = append(in, p.v)
		}
	}
	return in
}

// fold is max_over_time, min_over_time or sum_over_time of in (not empty), as the rules' roll-ups record them.
func fold(fn string, in []float64) float64 {
	value := in[0]
	for _, x := range in[1:] {
		switch fn {
		case "max":
			value = math.Max(value, x)
		case "min":
			value = math.Min(value, x)
		case "sum":
			value += x // counts: integers, exact in any order (promql funcSumOverTime's Kahan sum too)
		}
	}
	return value
}

// changes is promql/functions.go funcChanges over in: a change is a value that differs from the one before (both
// NaN: none).
func changes(in []float64) float64 {
	count := 0.0
	for i, x := range in[1:] {
		if x != in[i] && !(math.IsNaN(x) && math.IsNaN(in[i])) {
			count++
		}
	}
	return count
}
