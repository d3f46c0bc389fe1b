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
// Input on stdin, one VM a line, tab-separated: namespace, name, node, vCPUs, memory bytes, cpu share, memory
// share, balloon (1 or 0). Usage: tsdbwrite -out DIR -start UNIX -end UNIX -step SECONDS [-block HOURS]
// Writes one block per -block hours (aligned to -start) and prints the number of samples written.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
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

func writeBlock(dir string, fleet []vm, start, from, to, step float64) (int, error) {
	blockMs := int64((to - from) * 1000)
	// promtool's trick (backfill.go): a head twice the block's size accepts every sample of the block in any order
	w, err := tsdb.NewBlockWriter(slog.New(slog.DiscardHandler), dir, 2*blockMs)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	ctx := context.Background()
	app := w.Appender(ctx)
	samples, pending := 0, 0
	first := math.Ceil(from/step) * step
	for _, v := range fleet {
		for _, s := range v.series(start) {
			var ref storage.SeriesRef
			for t := first; t < to; t += step {
				if ref, err = app.Append(ref, s.labels, int64(t)*1000, s.value(t)); err != nil {
					return 0, fmt.Errorf("add sample: %w", err)
				}
				samples++
				pending++
			}
			if pending >= maxSamplesInAppender {
				if err := app.Commit(); err != nil {
					return 0, err
				}
				app = w.Appender(ctx)
				pending = 0
			}
		}
	}
	if err := app.Commit(); err != nil {
		return 0, err
	}
	if _, err := w.Flush(ctx); err != nil {
		return 0, err
	}
	return samples, nil
}

func main() {
	out := flag.String("out", "", "the TSDB folder to write blocks into")
	start := flag.Int64("start", 0, "the first sample's time (Unix seconds; every VM starts then)")
	end := flag.Int64("end", 0, "the last sample's time (Unix seconds, inclusive)")
	step := flag.Int64("step", 60, "seconds between samples")
	block := flag.Int64("block", 24, "hours per block")
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
	total := 0
	last := float64(*end) + 1
	for from := float64(*start); from < last; from += float64(*block * 3600) {
		to := math.Min(from+float64(*block*3600), last)
		n, err := writeBlock(*out, fleet, float64(*start), from, to, float64(*step))
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		total += n
	}
	fmt.Println(total)
}
