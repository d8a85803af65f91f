"""--explain's fast paths, hand-made GQA and pace rules against their own evidence (issue 53,
items 3 and 4): made-up traces of each condition, and committed traces edited to one; the
expected verdict is written in each test before the doctor reads the trace."""
import json
from pathlib import Path

import pytest
from factory import FIXTURES
from madeup import ev, kernel, launch, trace_of

from report.doctor.explain import explain, explain_json, explain_path
from report.doctor.output import said
from report.doctor.output.text_report import first_screen

CORPUS = Path(__file__).parent / "fixtures" / "corpus"


def graph_replays(n, kernels=2, every=200.0):
    """n replays of a captured graph and nothing else: no ranges, each replay one
    cudaGraphLaunch whose correlation id its kernels carry."""
    events = []
    for i in range(n):
        t = 1000.0 + every * i
        events.append(launch(t, 10 + i, "cudaGraphLaunch", dur=8.0))
        events += [kernel("replayed_kernel", t + 20 + 30 * k, 25.0, 10 + i) for k in range(kernels)]
    return trace_of(*events)


def test_replay_counts_agree_with_the_trace():
    # expected, before reading: the whole trace is the scope; 3 replays, 3 per range, 0 other launches
    found = explain(graph_replays(3))
    g = found.graphs
    assert (g.replays, g.activities) == (3, 6)
    assert g.per_range == 3 and g.other_launches_per_range == 0
    assert found.pace.launches_per_range == g.per_range + g.other_launches_per_range


def steps(n_steps, kernels_us, gap=30.0, sync=None):
    """n_steps ProfilerSteps, each launching one kernel per entry of kernels_us, one after the
    other, each launched `gap` µs after the last one ended (the host's path of a call); sync: the
    runtime call after each step's last launch that waits for its kernel (cudaDeviceSynchronize)."""
    events, t, corr = [], 0.0, 1
    for s in range(n_steps):
        start = t
        for us in kernels_us:
            events += [launch(t, corr), kernel("step_kernel", t + 5, us, corr)]
            corr += 1
            if sync:
                events.append(launch(t + 2.5, corr, sync, dur=5 + us - 2.5 + 1))
                corr += 1
            t += 5 + us + gap
        events.append(ev("user_annotation", f"ProfilerStep#{s + 1}", start - 1, t - start))
    return trace_of(*events)


def rules(found):
    return [f.rule for f in found.findings]


def test_many_short_kernels_only_where_there_are_many_and_they_are_short():
    # expected: 300 launches of 2 µs kernels: launch-bound (CUDA graphs)
    assert "launch_bound" in rules(explain(steps(3, [2.0] * 300, gap=15.0)))
    # expected: 3 launches with one 120 µs kernel per step: host-paced, but not "many short kernels"
    few = explain(steps(5, [3.0, 120.0, 3.0], gap=40.0))
    assert few.pace.paced_by == "host" and few.pace.launches_per_range == 3
    assert "launch_bound" not in rules(few)
    # expected: 300 launches of 60 µs kernels with 30 µs host waits: many, not short
    long = explain(steps(3, [60.0] * 300, gap=30.0))
    assert long.pace.paced_by == "host" and long.pace.median_kernel_us == 60.0
    assert "launch_bound" not in rules(long)


def test_the_h200_microbenchmark_of_one_call_per_range_is_not_many_short_kernels():
    # flash_fwd: one 97 µs kernel per range, the host's path of one SDPA call between them
    found = explain_path(FIXTURES / "flash.json.gz")
    assert found.pace.launches_per_range == 1 and "launch_bound" not in rules(found)



def queued_phrase(found):
    return said.say("pace.queued", n=2).split(" 2 ")[-1][-20:]  # the sentence's last words, after its figure


def test_launches_queue_ahead_of_the_gpu_only_beside_a_queue():
    # expected: the GPU busy back to back, each kernel starting 1 µs after its launch: GPU-bound, no queue
    busy = explain(steps(3, [20.0] * 50, gap=-4.0))
    assert busy.pace.verdict == "GPU-bound" and busy.pace.launch_delay_us < 50
    assert not said.queued(busy.pace) and queued_phrase(busy) not in busy.pace.evidence
    assert first_screen(busy)[0].startswith(said.say("pace.head.gpu_busy", verdict="GPU-bound", scope="X")[:30])
    # expected: each kernel starts 100 µs after its launch call, the GPU busy: launches queue, at least one kernel
    late = steps(3, [20.0] * 50, gap=-4.0)
    for e in late["traceEvents"]:
        if e["cat"] == "kernel":
            e["ts"] += 100.0
    queue = explain(late)
    assert queue.pace.launch_delay_us >= 50 and said.queued(queue.pace)
    assert queued_phrase(queue) in queue.pace.evidence


def test_every_communication_stream_is_listed_or_counted():
    # HTA's a100_negative_queue: NCCL on three streams of device 0
    found = explain_path(CORPUS / "hta" / "a100_negative_queue.json.gz")
    assert len(found.communication) == 3
    screen = "\n".join(first_screen(found))
    named = [c for c in found.communication if f"stream {c.stream}:" in screen]
    more = said.say("comm.more", n=len(found.communication) - len(named), collectives="NCCL")
    assert len(named) == 2 and more in screen


def test_a_head_dim_of_1_is_padded_and_its_stride_needs_no_contiguous():
    from madeup import call, sdpa_args
    # expected: q, k, v [2, 8, 128, 1] out of a transpose (last stride 8, not 1), bf16, flash ran after padding
    # the head dim to 8; flash's and cuDNN's stride check ignores a size-1 dim, efficient's does not (and its
    # head-dim check stops it anyway); .contiguous() would change nothing; the remedy pads up, never to 0
    shape, strides = (2, 8, 128, 1), (1024, 1, 8, 8)
    args = sdpa_args(shape, shape, strides=[strides] * 3)
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_flash_attention",
                                   [("aten::constant_pad_nd", "copy_kernel")], args)))
    why = found["attention"]["calls"][0]["why"]
    fixes = {r.fix: r.backends for r in why.speed}
    assert "contiguous" not in fixes
    assert all(set(b) <= {"efficient"} for f, b in fixes.items() if f == "singleton_stride")
    head = next(f for f in found.findings if f.rule == "head_dim")
    assert head.fact.head_dim == 1 and head.remedy == said.say("head_dim.remedy_up", head_dim=1, up=8)


def gqa_decode(layers=4, gqa="False", kv_heads=32, repeat="expand"):
    """A GQA decode step written out: before each layer's SDPA call, K and V (8 heads) repeated to
    the query's 32 by expand + reshape (transformers' repeat_kv; the reshape copies) or by
    repeat_interleave, each copy a 30 µs elementwise kernel; SDPA's own kernel takes 10 µs."""
    from madeup import SDPA, sdpa_args
    events, t, corr = [], 0.0, 1
    for _ in range(layers):
        for _kv in ("k", "v"):
            if repeat == "expand":
                events.append(ev("cpu_op", "aten::expand", t, 3, **{"Input Dims": [[1, 8, 1, 300, 128]]}))
                copy = ev("cpu_op", "aten::reshape", t + 4, 12, **{"Input Dims": [[1, 8, 4, 300, 128]]})
            else:
                copy = ev("cpu_op", "aten::repeat_interleave", t + 4, 12, **{"Input Dims": [[1, 8, 300, 128]]})
            events += [copy, launch(t + 6, corr), kernel("elementwise_kernel", t + 20, 30.0, corr)]
            t, corr = t + 40, corr + 1
        args = sdpa_args((1, 32, 1, 128), (1, kv_heads, 300, 128), gqa=gqa)
        events += [ev("cpu_op", SDPA, t, 20, **args), ev("cpu_op", "aten::_scaled_dot_product_flash_attention", t + 2, 15),
                   launch(t + 4, corr), kernel("flash_fwd_splitkv_kernel", t + 30, 10.0, corr)]
        t, corr = t + 45, corr + 1
    return trace_of(*events)


def test_k_and_v_repeated_by_hand_before_sdpa_are_named_with_enable_gqa():
    # expected: 4 calls, 8 repeats to the query's 32 heads, 8 × 30 µs of copies: the remedy is enable_gqa=True
    for repeat in ("expand", "repeat_interleave"):
        found = explain(gqa_decode(repeat=repeat))
        hand = next(f for f in found.findings if f.rule == "repeated_kv")
        assert (hand.fact.calls, hand.fact.repeats, hand.fact.q_heads) == (4, 8, 32)
        assert hand.time_us == 8 * 30.0 and found.findings[0] is hand
        assert "enable_gqa=True" in hand.remedy
    # expected: none where SDPA gets the 8 heads itself (enable_gqa=True) or K/V keep fewer heads
    assert "repeated_kv" not in rules(explain(gqa_decode(gqa="True")))
    assert "repeated_kv" not in rules(explain(gqa_decode(kv_heads=8)))


def encoder_layers(layers=3, in_layer=True, mask=True):
    """nn.TransformerEncoderLayer in eval with a src_key_padding_mask, as its fast path runs:
    aten::_transformer_encoder_layer_fwd around aten::_native_multi_head_attention, which (given a
    mask) runs bmm, aten::_masked_softmax, bmm instead of SDPA; each a kernel of 20 µs."""
    events, t, corr = [], 0.0, 1
    for _ in range(layers):
        if in_layer:
            events.append(ev("cpu_op", "aten::_transformer_encoder_layer_fwd", t, 300))
        events.append(ev("cpu_op", "aten::_native_multi_head_attention", t + 5, 200))
        softmax = "aten::_masked_softmax" if mask else "aten::_softmax"
        for i, op in enumerate(("aten::addmm", "aten::bmm", softmax, "aten::bmm")):
            at = t + 10 + 40 * i
            events += [ev("cpu_op", op, at, 30), launch(at + 2, corr), kernel(f"kernel_{i}", at + 25, 20.0, corr)]
            corr += 1
        t += 320
    return trace_of(*events)


def test_the_fast_paths_padding_mask_is_named_not_need_weights():
    # expected: 3 encoder layers' attention unfused because of the mask: the fast-path finding with
    # nested tensors (enable_nested_tensor) or SDPA as its remedy; never need_weights=False (already False)
    found = explain(encoder_layers())
    assert "mha_need_weights" not in rules(found)
    fast = next(f for f in found.findings if f.rule == "fast_path_mask")
    assert (fast.fact.calls, fast.fact.encoder_layer) == (3, 3)
    assert fast.time_us == 3 * 3 * 20.0  # bmm, _masked_softmax, bmm: not the projection (addmm)
    assert "enable_nested_tensor=True" in fast.remedy and "need_weights=False" not in fast.remedy
    # expected: nn.MultiheadAttention's fast path alone with a mask: the same finding, no encoder layer
    alone = explain(encoder_layers(in_layer=False))
    assert [(f.fact.calls, f.fact.encoder_layer) for f in alone.findings if f.rule == "fast_path_mask"] == [(3, 0)]
    # expected: the fast path without a mask and without SDPA inside, outside a layer: it computed the weights
    weights = explain(encoder_layers(in_layer=False, mask=False))
    assert "mha_need_weights" in rules(weights) and "fast_path_mask" not in rules(weights)


def _flat(text):
    return " ".join(text.split())


@pytest.mark.parametrize("lang", ["en", "nb"])
@pytest.mark.parametrize("name", ["eager_infer", "decode", "sdpa_train", "hta/a100_negative_queue"])
def test_the_cards_screen_is_the_texts_first_screen_in_order_and_words(name, lang):
    """The page's card renders the JSON's "screen" (docs/javascripts/trace-doctor.js): each of its
    sentences is on the text's first screen, in the same order (a clipped one up to its clip)."""
    result = explain_path(CORPUS / f"{name}.json.gz")
    doc = json.loads(explain_json(result, lang))
    text = _flat("\n".join(first_screen(result, lang)))
    at = 0
    for section in doc["screen"]:
        for sentence in ([section["heading"]] if section["heading"] else []) + [t["text"] for t in section["lines"]]:
            head = _flat(sentence)[:60]
            found = text.find(head, at)
            assert found >= at, (sentence, text[at:at + 200])
            at = found + len(head)
    words = [t["text"] for s in doc["screen"] for t in s["lines"]]
    assert any(said.backend_name("cudnn", "cuda", lang) in w for w in words) == ("cuDNN" in text)


def reduce_overhead(steps=5, kernels=20, kernel_us=5.0, gap=40.0, copies=1, sync="cudaDeviceSynchronize"):
    """torch.compile(mode="reduce-overhead") as a loop runs it: per ProfilerStep, the graph's inputs
    copied into its static buffers (cudaMemcpyAsync, a DtoD copy each), one cudaGraphLaunch replaying
    `kernels` kernels, then (sync) the host waits for them; `gap` µs of host work before the next step."""
    events, t, corr = [], 0.0, 1
    for s in range(steps):
        start = t
        for _ in range(copies):
            events += [launch(t, corr, "cudaMemcpyAsync", dur=3.0),
                       ev("gpu_memcpy", "Memcpy DtoD (Device -> Device)", t + 6, 2.0, tid=7, correlation=corr,
                          device=0, stream=7)]
            t, corr = t + 12, corr + 1
        events.append(launch(t + 4, corr, "cudaGraphLaunch", dur=6.0))
        at = t + 16
        for k in range(kernels):
            events.append(kernel(f"triton_poi_fused_{k}", at, kernel_us, corr))
            at += kernel_us + 0.5
        corr += 1
        if sync:
            events.append(launch(t + 11, corr, sync, dur=at - (t + 11) + 1))
            corr += 1
        t = at + gap
        events.append(ev("user_annotation", f"ProfilerStep#{s + 1}", start - 1, t - start))
    return trace_of(*events)


def test_a_synchronize_every_step_is_named_as_what_paces_a_microbenchmark():
    # expected: one 100 µs kernel a step, then cudaDeviceSynchronize, then 30 µs of host work: the sync paces it
    for sync in ("cudaDeviceSynchronize", "cudaStreamSynchronize"):
        found = explain(steps(6, [100.0], gap=30.0, sync=sync))
        assert found.pace.paced_by == "sync"
        step = next(f for f in found.findings if f.rule == "step_sync")
        assert step.fact.by == sync and step.fact.gap_us == 30.0 + 5.0  # the host's work and the next launch
    # expected: the same loop without the sync: no step_sync, not paced by a sync
    free = explain(steps(6, [100.0], gap=30.0))
    assert free.pace.paced_by != "sync" and "step_sync" not in rules(free)


def test_a_reduce_overhead_step_names_its_sync_and_blames_no_graph_break_for_its_input_copy():
    # expected: the per-step cudaDeviceSynchronize sets the pace; the copy outside the graph is the graph's input
    found = explain(reduce_overhead())
    assert found.pace.paced_by == "sync" and rules(found)[0] == "step_sync"
    assert found.graphs.per_range == 1 and found.graphs.other_launches_per_range == 1
    # expected: many short replayed kernels, 12 input copies a step, no sync: launch-bound on the copies, which
    # are no graph break's work
    many = explain(reduce_overhead(copies=12, sync=None, gap=15.0))
    bound = next(f for f in many.findings if f.rule == "launch_bound")
    assert bound.fact.copies_outside
    assert bound.remedy == said.say("launch_bound.remedy_replayed_copies", per=1, other=12)


def test_the_page_states_the_launch_bound_rules_thresholds():
    from report.doctor.rules.remedies import LAUNCH_BOUND_KERNEL_US, LAUNCH_BOUND_LAUNCHES
    docs = Path(__file__).parent.parent / "docs"
    en = " ".join((docs / "read-your-trace.en.md").read_text(encoding="utf-8").split())
    nb = " ".join((docs / "read-your-trace.nb.md").read_text(encoding="utf-8").split())
    assert f"{LAUNCH_BOUND_LAUNCHES} or more a step, the median kernel is under {LAUNCH_BOUND_KERNEL_US:.0f}&nbsp;µs" in en
    assert f"{LAUNCH_BOUND_LAUNCHES} eller flere per steg, mediankjernen er under {LAUNCH_BOUND_KERNEL_US:.0f}&nbsp;µs" in nb
