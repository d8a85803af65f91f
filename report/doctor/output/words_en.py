"""The trace doctor's sentences in English: one key per sentence, each whole, its figures and
names as placeholders that output/said.py fills and writes as en writes numbers. Every key
is in words_nb.py with the same placeholders (tests/test_doctor_words.py).

Placeholders take a format spec: Python's own (`{n:,}`, `{x:,.0f}`: the separators are the
language's), or one of said.py's: us (three significant figures, µs), us1 (one decimal,
µs), pct0 and pct1 (a share of 1 as percent), count, plural:ONE|MANY (a count and its
noun), word:ONE|MANY (the noun alone), list (", "-joined; one of over eight items clipped:
list.more), join:SEP, dims (×-joined); after a second colon, a width (us1:>12).
"""

SENTENCES = {
    # ------------------------------------------------------------ the first screen
    "pace.head.host": "Paced by the host: the GPU waits for launches ({verdict}, over {scope})",
    "pace.head.gpu": "Paced by the GPU: launches queue ahead of it ({verdict}, over {scope})",
    "pace.head.gpu_busy": "Paced by the GPU: it runs through each range, launches not queued ({verdict}, over {scope})",
    "pace.head.sync": ("Paced by a sync: the host waits for the GPU, then the GPU for the host "
                       "({verdict}, over {scope})"),
    "pace.head.waiting": ("Paced by waiting: the GPU idles with its work launched (events, other streams, latency) "
                          "({verdict}, over {scope})"),
    "pace.head.none": "Paced by nothing on the GPU ({verdict}, over {scope})",
    "pace.head.no_scope": "Paced by nothing on the GPU",
    "pace.no_range": "no range with GPU work",
    "pace.busy": "GPU busy {share:pct0} of each range",
    "pace.host_wait": "host wait {share:pct0}",
    "pace.launches": "{n:,.0f} {n:word:launch|launches} per range",
    "pace.launches_activities": "{n:,.0f} {n:word:launch|launches} per range ({activities:,.0f} GPU activities)",
    "pace.kernel": "median kernel {us:us}",
    "pace.delay": "launch delay {us:us}",
    "pace.queued": "about {n:,.0f} {n:word:kernel|kernels} queued (launch delay / median kernel)",
    "pace.profiler": "profiler's own {us:us}",
    "pace.with_stack": "recorded with_stack=True: its Python stacks add to every op's host time",
    "graphs.replay": ("{graphs} replay here: {replays:plural:replay|replays} of "
                      "{activities:plural:GPU activity|GPU activities}, {gpu:us} ({share:pct0} of GPU time)"),
    "graphs.replay_per_range": ("{graphs} replay here: {replays:plural:replay|replays} of "
                                "{activities:plural:GPU activity|GPU activities}, {gpu:us} ({share:pct0} of GPU time); "
                                "{per:,.1f} per range, beside {other:,.1f} other launches"),
    "comm.line": ("{collectives} on device {device} stream {stream}: {comm:us}, {share:pct0} of its GPU busy time; "
                  "compute runs during {overlap:pct1} of it"),
    "comm.more": "… and {n:plural:more stream|more streams} with {collectives} (the detail's streams)",
    "head.attention": "Attention:",
    "att.row.chain": "{backend}, {direction}: {calls:plural:chain|chains}, {gpu:us} ({share:pct1} of GPU time)",
    "att.row.kernel": "{backend}, {direction}: {calls:plural:kernel|kernels}, {gpu:us} ({share:pct1} of GPU time)",
    "att.row.call": "{backend}, {direction}: {calls:plural:call|calls}, {gpu:us} ({share:pct1} of GPU time)",
    "att.fell_back": "{row}: fell back to math",
    "att.cause": "{cause} {us:us}",
    "att.copies": "{copies:,} out-of-place masked_fill copies of the scores",
    "att.with_why": "{row}; {why}",
    "call.ran": "{calls:plural:call|calls} ran {backend}: {inputs}",
    "call.ran_why": "{calls:plural:call|calls} ran {backend}: {inputs}; why: {why}",
    "call.no_backend": "no backend op",
    "warning": "warning: {warning}",
    "note.no_inputs": ("the trace records no SDPA inputs: record it with torch.profiler.profile(record_shapes=True) "
                       "for the reason each backend ran"),
    "head.findings": "Findings, largest time at stake first:",
    "finding.head": "{i}. {title}: {time:us} at stake ({share:pct0})",
    "finding.evidence": "evidence: {evidence}",
    "finding.remedy": "remedy: {remedy}",
    "finding.none": "No finding: no rule's evidence is in the trace.",
    "finding.more": "… {n:plural:more finding|more findings} in the JSON (--format json); the detail follows.",
    "detail.follows": "The detail follows.",
    # the verdicts and what paced, as names
    "verdict.CPU-bound": "CPU-bound",
    "verdict.GPU-bound": "GPU-bound",
    "verdict.stalled": "stalled",
    "verdict.CPU only": "CPU only",
    "verdict.none": "none",
    "direction.forward": "forward",
    "direction.backward": "backward",
    "direction.replayed": "replayed",
    "direction.compiled": "compiled",
    "direction.call": "call",
    "range.whole_trace": "(whole trace)",
    # ------------------------------------------------------------ the backends and the platforms
    "backend.flash": "flash (FlashAttention)",
    "backend.cudnn": "cuDNN",
    "backend.math": "math (unfused: matmul, softmax, matmul)",
    "backend.flex": "Flex attention (Triton kernels)",
    "backend.overrideable": "a backend's own (overrideable)",
    "backend.preparation": "SDPA's preparation of its inputs (no backend)",
    "backend.flash_nested": "flash on nested jagged tensors (varlen)",
    "backend.efficient_nested": "efficient on nested jagged tensors (varlen)",
    "backend.inductor_fused": "Inductor kernels fusing ops around an SDPA call (Triton)",
    "backend.hand_written": "hand-written (matmul, softmax, matmul outside SDPA)",
    "backend.efficient.cuda": "efficient (memory-efficient, xFormers/CUTLASS)",
    "backend.efficient.rocm": "efficient (memory-efficient)",
    "platform.graph.cuda": "a CUDA graph's replay",
    "platform.graph.rocm": "a HIP graph's replay",
    "platform.gpu.cuda": "a CUDA GPU",
    "platform.gpu.rocm": "an AMD GPU",
    "prep.head_dim": "padding the head dim to a multiple of 8 (pad_last_dim)",
    "prep.bool_mask": "converting the bool mask to an additive one (convert_boolean_attn_mask)",
    "prep.gqa_repeat": "repeating K/V heads for the query heads (GQA)",
    "prep.layout_copy": "copying inputs to a new layout",
    "prep.other": "other work before the backend's op",
    # ------------------------------------------------------------ a group of calls' inputs
    "inputs.mask": "{dtype} q [{q:list}], k [{k:list}], a {mask_dtype} mask [{mask:list}]",
    "inputs.no_mask": "{dtype} q [{q:list}], k [{k:list}], no mask",
    "inputs.dropout": "dropout {p:g}",
    "list.more": "… {n:,} more",
    "inputs.malformed.dims": "recorded inputs malformed: a dim of {which} is negative or over 2⁶³ − 1",
    "inputs.malformed.strides": "recorded inputs malformed: a stride of {which} is negative or over 2⁶³ − 1",
    "inputs.malformed.rank": "recorded inputs malformed: {which} has not one stride per dim",
    "inputs.malformed.dropout": "recorded inputs malformed: dropout_p is not a number from 0 to 1",
    "calls.more": "  … and {n:,} more groups of calls",
    # ------------------------------------------------------------ why a group of calls ran its backend
    "why.line": "{backends}: {check} ({evidence})",
    "why.rule_no_table": "{lines} [the doctor's reading of sdp_utils.cpp (2.11): it holds no recorded table]",
    "why.rule_no_match": ("{lines} [the doctor's reading of sdp_utils.cpp (2.11): no recorded condition has inputs "
                          "equal to these in what the checks read]"),
    "why.rule_other_gpu": ("{lines} [the doctor's reading of sdp_utils.cpp (2.11) for compute capability {cc}: the "
                           "recorded tables are of compute capability {theirs:list} only, and another GPU generation's "
                           "answers do not stand for this one]"),
    "why.rule_no_gpu": ("{lines} [the doctor's reading of sdp_utils.cpp (2.11): the trace names no GPU "
                        "(deviceProperties), so no recorded table answers for it]"),
    "why.evidence_no": "the recorded condition {condition} fails the same check: PyTorch said no to {no:list}",
    "why.evidence_yes": "the recorded condition {condition} fails the same check, yet PyTorch said yes to {yes:list}",
    "why.first_either": ("{ran} comes first in one of the two orders PyTorch 2.11 may follow here (cuDNN first on "
                         "compute capability 9.x and 10.x with a cuDNN newer than 9.15.0, else flash first; the trace "
                         "names no cuDNN version)"),
    "why.asked": "{by} ran {ran} for inputs its checks read as equal to these ({condition})",
    "why.it_said": "it said {said}",
    "why.said_no": "no",
    "why.fixed": "with the fix it measured ({condition}) it ran {ran}",
    "why.trace_shows": "the trace shows {lines}",
    "why.first": "select_sdp_backend's order picks {ran} first for these inputs",
    "why.no_check": "{ran} ran; the inputs show no check that stops the backends before it",
    "why.warning": "{evidence}: {fix}",
    "reason.not_4d": "q is {ndim}-D [{query:list}]: the fused kernels take 4-D q, k, v",
    "reason.last_dim_stride": "strides of q [{strides:list}]: the last dimension is not contiguous",
    "reason.last_dim_stride_unrecorded": "strides (not recorded): the last dimension is not contiguous",
    "reason.dtype": "{dtype} inputs: flash and cuDNN run {low:join: and }",
    "reason.dtype_efficient": "{dtype} inputs",
    "reason.head_dim_too_large": "head dim {head_dim}: flash takes q, k, v of one head dim up to {most}",
    "reason.head_dim_alignment": "head dim {head_dim} is not a multiple of {align} (flash pads it: pad_last_dim)",
    "reason.mask": "a {mask_dtype} attn_mask [{mask:list}]: flash takes none",
    "reason.mask_unknown_grad": ("a {mask_dtype} attn_mask [{mask:list}]: flash takes none; the backward takes it as "
                                 "attn_bias, but the trace does not record whether it requires grad (a learned bias)"),
    "reason.bias_grad": "the backward computes the float mask's gradient: a learned bias",
    "reason.gqa_heads": "{q_heads} query heads and {kv_heads} key/value heads without enable_gqa=True",
    "reason.causal_non_square": "is_causal with {queries} queries and {keys} keys",
    "reason.gpu_generation": ("compute capability {cc}: flash and cuDNN run from sm80 on, efficient from sm50 on "
                              "(PyTorch's hardware checks)"),
    "reason.mask_shape": ("an attn_mask [{mask:list}] whose shape does not broadcast to the batch, heads, queries "
                          "and keys"),
    "reason.mask_grad_unknown": ("a float attn_mask: cuDNN takes none that requires grad, and the trace does not "
                                 "record whether this one does"),
    "reason.cudnn_one_key": "one key: cuDNN takes no key length of 1",
    "reason.not_first.one": ("the trace shows {ran} ran where {free:list} comes first in the order "
                             "({order:list}{assumed}) and passes every check the inputs show: a pin (sdpa_kernel, "
                             "enable_*_sdp(False)), which the doctor does not read from a trace; a build without "
                             "{free:list} (PyTorch's Windows wheels have shipped without flash: \"Torch was not "
                             "compiled with flash attention\"); or a check the trace cannot show (the tensors' storage "
                             "offsets, torch.use_deterministic_algorithms for cuDNN)"),
    "reason.not_first.many": ("the trace shows {ran} ran where {free:list} come first in the order "
                              "({order:list}{assumed}) and pass every check the inputs show: a pin (sdpa_kernel, "
                              "enable_*_sdp(False)), which the doctor does not read from a trace; a build without "
                              "them (PyTorch's Windows wheels have shipped without flash: \"Torch was not compiled "
                              "with flash attention\"); or a check the trace cannot show (the tensors' storage "
                              "offsets, torch.use_deterministic_algorithms for cuDNN)"),
    "order.table": "",
    "order.cudnn_first": (", PyTorch 2.11's on compute capability 9.x and 10.x with a cuDNN newer than 9.15.0: "
                          "the trace names no cuDNN version"),
    "order.default": ", PyTorch 2.11's default",
    "order.either": (", or PyTorch 2.11's default where the cuDNN is not newer than 9.15.0 (the trace names no "
                     "version): first in both"),
    "reason.causal_top_left": ("is_causal=True with {queries} {queries:word:query|queries} and {keys} keys: the mask "
                               "is aligned top-left, so the first query sees only the first key"),
    "reason.pinned": ("{ran} ran where {by} ran {their} for inputs equal in what the checks read ({condition}): "
                      "a pin (sdpa_kernel, enable_*_sdp(False)), a build without {their}, or what the trace does not "
                      "record (another PyTorch or cuDNN version than the table's, "
                      "torch.use_deterministic_algorithms, the tensors' storage offsets)"),
    # what to change, by rules/why.py's fix keys
    "fix.reshape_4d": "give q, k, v as 4-D [batch, heads, seq, head_dim] tensors (fold extra dims into batch)",
    "fix.contiguous": "call .contiguous() on q, k, v (their last dimension must have stride 1; padding does not help)",
    "fix.singleton_stride": ("a head dim of 1 keeps its stride through .contiguous() (such a tensor counts as "
                             "contiguous already): x.clone(memory_format=torch.contiguous_format) gives it stride 1; "
                             "flash and cuDNN do not check a size-1 dim's stride"),
    "fix.head_dim_multiple_of_8": "a head dim that is a multiple of 8",
    "fix.head_dim_at_most_256": "a head dim of at most 256 (split the heads)",
    "fix.low_precision": ("run attention in bfloat16 or float16 (torch.autocast(\"cuda\", dtype=torch.bfloat16), "
                          "or cast q, k, v)"),
    "fix.enable_gqa": "pass enable_gqa=True (K/V keep their own heads)",
    "fix.bool_mask": ("if the mask is the causal triangle, drop it and pass is_causal=True; a padding mask: "
                      "nested jagged tensors (torch.nested, layout=torch.jagged) run flash without one"),
    "fix.float_mask": "flash takes no mask: is_causal=True where the mask is causal, FlexAttention for a score bias",
    "fix.learned_bias": "a learned bias as FlexAttention's score_mod (torch.nn.attention.flex_attention)",
    "fix.need_weights_false": ("pass need_weights=False to nn.MultiheadAttention (it then calls SDPA; "
                               "need_weights=True computes the weights with bmm and softmax)"),
    "fix.check_pin": ("look for an sdpa_kernel(...) or enable_*_sdp(False) around the call (remove it to leave the "
                      "choice to SDPA), and ask the build (torch.backends.cuda.is_flash_attention_available())"),
    "fix.float16": "run attention in float16 (before sm80 the fused kernels take no bfloat16)",
    "fix.causal_lower_right": ("for one query pass is_causal=False (it may see every key); for several new queries "
                               "use torch.nn.attention.bias.causal_lower_right(L, S) as attn_mask"),
    # ------------------------------------------------------------ the findings: title, evidence, remedy, source
    "launch_bound.title": "The host's launches set the pace: many short kernels",
    "launch_bound.evidence": ("{launches:,.0f} launches per range, median kernel {kernel:us}, median wait for the host "
                              "between two {gap:us}, GPU busy {busy:pct0}, launch delay {delay:us}"),
    "launch_bound.evidence_decode": ("{launches:,.0f} launches per range, median kernel {kernel:us}, median wait for "
                                     "the host between two {gap:us}, GPU busy {busy:pct0}, launch delay {delay:us}, "
                                     "{decode:,} SDPA calls with one query (decoding)"),
    "launch_bound.remedy": ("capture the step in a CUDA graph: torch.compile(model, mode=\"reduce-overhead\"), "
                            "or torch.cuda.graphs"),
    "launch_bound.remedy_decode": ("capture the step in a CUDA graph: torch.compile(model, mode=\"reduce-overhead\"), "
                                   "or torch.cuda.graphs; for generate(), a static KV cache "
                                   "(cache_implementation=\"static\") so the decode step has fixed shapes to capture"),
    "launch_bound.remedy_replayed": ("CUDA graphs replay here already ({per:,.0f} per range): the waits are for the "
                                     "{other:,.0f} launches per range outside them; capture those too (a graph break "
                                     "in torch.compile leaves them out), or launch fewer"),
    "launch_bound.remedy_replayed_copies": ("CUDA graphs replay here already ({per:,.0f} per range); the {other:,.0f} "
                                            "launches per range outside them are copies, a graph's inputs copied into "
                                            "its static buffers (torch.compile's reduce-overhead copies each input "
                                            "that is not a parameter or a static address), not work a graph break "
                                            "left out: pass the same input tensors each step, or mark them "
                                            "(torch._dynamo.mark_static_address)"),
    "launch_bound.source": "CUDA Graphs (PyTorch docs: torch.cuda.graphs, torch.compile modes)",
    "host_work.title": "The host's own work between launches sets the pace",
    "host_work.evidence_op": ("{waits:,} waits for the host, median {gap:us} (over {over:us}: more than launching an "
                              "op takes); the longest {longest:us}, before {launch} in {op}"),
    "host_work.evidence": ("{waits:,} waits for the host, median {gap:us} (over {over:us}: more than launching an "
                           "op takes); the longest {longest:us}, before {kernel}"),
    "host_work.remedy": ("see what the host runs before the longest waits (with_stack=True records its Python frames) "
                         "and move it out of the step, or overlap it with GPU work"),
    "host_work.source": "HTA's idle-time breakdown (host wait)",
    "optimizer.title": "The optimizer loops over parameters ({name})",
    "optimizer.evidence": "{launches:,.0f} launches per optimizer step and no aten::_foreach_ or _fused_ op in it",
    "optimizer.remedy": "pass foreach=True (or fused=True) to the optimizer: one launch per group of tensors",
    "optimizer.source": "torch.optim's foreach and fused implementations (torch/optim/adamw.py)",
    "hand.title": "Attention is written by hand (matmul, softmax, matmul)",
    "hand.title_mha": "nn.MultiheadAttention computes its weights (need_weights=True): bmm, softmax, bmm",
    "hand.evidence": "{chains:,} {chains:word:chain|chains} outside SDPA",
    "hand.evidence_copies": ("{chains:,} {chains:word:chain|chains} outside SDPA; {copies:,} out-of-place "
                             "masked_fill copies of the scores"),
    "hand.evidence_mha": ("{chains:,} {chains:word:chain|chains} outside SDPA; {mha:,} followed by the output "
                          "projection (linear): F.multi_head_attention_forward's need_weights path"),
    "hand.evidence_copies_mha": ("{chains:,} {chains:word:chain|chains} outside SDPA; {copies:,} out-of-place "
                                 "masked_fill copies of the scores; {mha:,} followed by the output projection "
                                 "(linear): F.multi_head_attention_forward's need_weights path"),
    "hand.remedy": "call torch.nn.functional.scaled_dot_product_attention: one fused kernel",
    "hand.copy_stays": "{remedy}; where a copy must stay, masked_fill_ in place under no_grad",
    "hand.source": "the seed's recommendations: fused attention, no out-of-place masked_fill",
    "native_weights.title": "nn.MultiheadAttention computes its weights (need_weights=True)",
    "native_weights.evidence": ("{calls:,} aten::_native_multi_head_attention calls without a fused attention op "
                                "inside"),
    "native_weights.source": "attention.cpp: native_multi_head_attention_cuda",
    "fast_path.title_layer": ("nn.TransformerEncoderLayer's fast path gets a padding mask: attention runs unfused "
                              "(bmm, _masked_softmax, bmm)"),
    "fast_path.title": ("nn.MultiheadAttention's fast path gets a mask: attention runs unfused (bmm, "
                        "_masked_softmax, bmm)"),
    "fast_path.evidence": ("{calls:,} aten::_native_multi_head_attention calls with aten::_masked_softmax inside and "
                           "no SDPA op; {layer:,} of them in aten::_transformer_encoder_layer_fwd, which passes "
                           "need_weights=False"),
    "fast_path.remedy": ("the fast path calls SDPA's fused kernels only without a mask: run the layers in "
                         "nn.TransformerEncoder(..., enable_nested_tensor=True), which turns src_key_padding_mask "
                         "into a nested tensor and passes no mask (eval, no grad, batch_first=True, norm_first=False, "
                         "an even nhead, no src_mask: it warns where one fails), or call "
                         "F.scaled_dot_product_attention with the mask (efficient and cuDNN take one)"),
    "fast_path.source": ("attention.cpp: native_multi_head_attention_cuda (SDPA only without a mask); "
                         "torch/nn/modules/transformer.py: TransformerEncoder.forward (_nested_tensor_from_mask)"),
    "bool_mask.title": "SDPA gets a bool mask it must convert, and flash cannot run",
    "bool_mask.evidence": ("{calls:,} calls with a bool mask [{mask:list}], is_causal=False; converting it takes "
                           "{time:us}"),
    "bool_mask.remedy_square": ("if the mask is the causal triangle, pass is_causal=True and no mask: flash runs and "
                                "the mask is never converted; {window}"),
    "bool_mask.remedy_padding": ("if it pads sequences, nested jagged tensors (torch.nested.nested_tensor(..., "
                                 "layout=torch.jagged)) run flash without padding or a mask; {window}"),
    "bool_mask.remedy_other": ("a sliding window or another pattern: FlexAttention's block mask (create_block_mask) "
                               "skips the masked blocks"),
    "bool_mask.source": "sdp_utils.cpp: check_for_attn_mask; attention.cpp: convert_boolean_attn_mask",
    "head_dim.title": "Head dim {head_dim} is not a multiple of 8",
    "head_dim.evidence": "{calls:plural:call|calls}; padding it to {up} takes {time:us}",
    "head_dim.remedy": "choose a head dim that is a multiple of 8 ({down} or {up})",
    "head_dim.remedy_up": ("a head dim of {up} or more, a multiple of 8: SDPA pads {head_dim} to {up} already, so "
                           "the kernels do the work of {up}"),
    "head_dim.source": "attention.cpp: pad_last_dim; sdp_utils.cpp: check_head_dim_size_mem_efficient",
    "math.title": "SDPA ran the unfused math backend",
    "math.evidence_unrecorded": ("aten::_scaled_dot_product_attention_math ran; the trace records no inputs "
                                 "(record_shapes=True) to say why"),
    "math.remedy_check": ("check with torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION): it raises and says "
                          "why"),
    "math.source": "sdp_utils.cpp: select_sdp_backend; the seed's math-pinned finding",
    "slow.title": "SDPA ran the efficient backend, not flash",
    "slow.source": "sdp_utils.cpp: can_use_flash_attention",
    "host_sync.title": "The host waits for the GPU in the loop ({by})",
    "host_sync.evidence": "the GPU's largest idle gaps follow {by}: {per:us} per range",
    "host_sync.remedy": "move {by} out of the loop, or read it every N steps",
    "host_sync.source": "CUDA streams: host reads synchronize",
    "step_sync.title": "A synchronize in every step paces the loop ({by})",
    "step_sync.evidence": ("each range ends in {by}, which waits {wait:us} for the GPU to finish; the GPU then idles "
                           "{gap:us} until the next range's first launch"),
    "step_sync.remedy": ("the GPU cannot run ahead of a step that waits for it: to time, synchronize once around "
                         "many steps or time with CUDA events (torch.cuda.Event(enable_timing=True)); elsewhere, move "
                         "{by} out of the loop"),
    "step_sync.source": "CUDA streams: a synchronize drains the queue (torch.cuda.synchronize)",
    "bias.title": "A mask or bias goes through SDPA's backward: flash cannot run it",
    "bias.evidence": "{calls:,} efficient-attention backward calls with an attn_bias input",
    "bias.remedy": ("a learned bias as FlexAttention's score_mod (torch.nn.attention.flex_attention), or no mask "
                    "with is_causal=True where the bias is causal"),
    "bias.source": "sdp_utils.cpp: check_for_attn_mask",
    "comm.title": "Communication runs with little compute beside it (stream {stream})",
    "comm.evidence": ("{kinds} on device {device} stream {stream}: {comm:us}, {share:pct0} of the device's GPU busy "
                      "time; compute runs during {overlap:pct1} of it"),
    "comm.collectives": "collectives",
    "comm.remedy.all_reduce": ("let the all-reduce run during backward: DistributedDataParallel buckets gradients and "
                               "starts each bucket's all-reduce as it fills (bucket_cap_mb; no_sync for gradient "
                               "accumulation), so no step waits for one all-reduce at its end"),
    "comm.remedy.all_gather": ("prefetch the next layer's all-gather: FSDP's forward_prefetch=True and "
                               "backward_prefetch=BackwardPrefetch.BACKWARD_PRE (FSDP2: reshard_after_forward, "
                               "set_modules_to_forward_prefetch)"),
    "comm.remedy.reduce_scatter": ("let the reduce-scatter run during backward: FSDP's backward_prefetch="
                                   "BackwardPrefetch.BACKWARD_PRE, and larger wrapped units so each collective has "
                                   "compute to hide behind"),
    "comm.remedy.other": ("start the collectives asynchronously (async_op=True) and wait on them only where their "
                          "result is needed, so compute runs meanwhile"),
    "comm.source": "HTA's communication-computation overlap (TraceAnalysis.get_comm_comp_overlap)",
    "pace_only.gpu.title": "The GPU's own work sets the pace",
    "pace_only.gpu.evidence": "the launches are ahead of the GPU",
    "pace_only.gpu.evidence_top": ("the launches are ahead of the GPU; the longest: {kernel}, {share:pct0} of GPU "
                                   "activity time"),
    "pace_only.gpu.evidence_busy": "the GPU runs through each range, its launches not queued",
    "pace_only.gpu.evidence_top_busy": ("the GPU runs through each range, its launches not queued; the longest: "
                                        "{kernel}, {share:pct0} of GPU activity time"),
    "pace_only.gpu.remedy": ("make the GPU's work shorter, longest first (the detail's first rows): the host is not "
                             "what waits"),
    "pace_only.waiting.title": "The GPU idles with its work launched",
    "pace_only.waiting.evidence": ("idle {share:pct0} of the range's time with the next activity already "
                                   "launched"),
    "pace_only.waiting.remedy": ("see what the idle gaps wait on (the detail's gaps marked other or stream: an event, "
                                 "another stream's work, a collective)"),
    "pace_only.graphs.title": "The host sets the pace between graph replays",
    "pace_only.graphs.evidence": ("captured graphs replay here already: the GPU waits for the host between the "
                                  "replays"),
    "pace_only.graphs.remedy": ("put more work in each replay (capture more of the step, or several steps in one "
                                "graph), or let the host do less between replays (the detail's largest gaps say after "
                                "what)"),
    "pace_only.graphs.source": "the pace verdict (explain.py); CUDA Graphs (torch.cuda.graphs)",
    "pace_only.host.title": "The host sets the pace, and no rule's remedy fits",
    "pace_only.host.evidence": ("no wait for the host is left between two launches once synchronize calls, host reads "
                                "and profiler steps are set aside"),
    "pace_only.host.evidence_gap": "the median wait for the host between two activities is {gap:us}",
    "pace_only.host.evidence_few": ("the median wait for the host between two activities is {gap:us}, beside "
                                    "{launches:,.0f} {launches:word:launch|launches} per range and a median kernel of "
                                    "{kernel:us}: the host's path of each call, not many short kernels"),
    "pace_only.host.remedy": ("see what the host runs in the range's largest gaps (the detail); with_stack=True "
                              "records its Python frames"),
    "pace_only.source": "the pace verdict (explain.py)",
    "repeat_kv.title": "K and V are repeated to the query's heads by hand before SDPA",
    "repeat_kv.evidence": ("{calls:plural:SDPA call|SDPA calls} with K/V heads equal to the query's after "
                           "{repeats:plural:repeat|repeats} ({op}) right before them; the copies take this time"),
    "repeat_kv.evidence_heads": ("{calls:plural:SDPA call|SDPA calls} with K/V heads equal to the query's after "
                                 "{repeats:plural:repeat|repeats} ({op}) to the query's {q} right before them; the "
                                 "copies take this time"),
    "repeat_kv.remedy": ("pass K and V with their own heads and enable_gqa=True (F.scaled_dot_product_attention, "
                         "torch 2.5 and later): flash and cuDNN take them unrepeated; efficient does not (float32 "
                         "then runs math)"),
    "repeat_kv.source": ("sdp_utils.cpp: check_batch_size_and_num_heads_dense (supports GQA: flash, cuDNN); "
                         "the recorded table's gqa condition"),
    "gemm.title_unrecorded": "A matmul runs a narrow-alignment kernel",
    "gemm.evidence_unrecorded": ("{kernel} ({tags:list}); no shapes are recorded for the op that launched it "
                                 "(record_shapes=True), so this is read off the kernel's name only: an operand is "
                                 "aligned to fewer than 8 elements"),
    "gemm.remedy_unrecorded": ("record with record_shapes=True to see the sizes; where one is not a multiple of 8, "
                               "pad it (a vocabulary, a head dim) to a multiple of 8, better 64"),
    "gemm.source_unrecorded": "CUTLASS's kernel names (alignN: operands aligned to N elements)",
    "gemm.title": "A matmul runs a narrow-alignment kernel: {sizes} not a multiple of 8",
    "gemm.evidence": "{kernel} ({tags:list}) from {op} with inputs {shapes}",
    "gemm.remedy": "pad the size to a multiple of 8, better 64 ({pads})",
    "gemm.pad": "{size:,} -> {padded:,}",
    "gemm.source": "CUTLASS's kernel names (alignN); the op's recorded Input Dims",
    # ------------------------------------------------------------ the detail: devices, GPU activities
    "detail.gpu": "GPU: {devices}",
    "detail.no_devices": "GPU: no device properties in the trace",
    "device": "{name} (compute capability {major}.{minor}, {sms} {unit})",
    "device.rocm": "{name} (compute capability {major}.{minor}, {sms} {unit}, ROCm properties)",
    "device.count": "{n:,} × {device}",
    "device.more": ", … and {n:,} more",
    "detail.activities": ("{n:,} GPU activities, {us:us1} of GPU activity time (their durations added up; the "
                          "shares below are of it)"),
    "detail.busy": "{us:us1} of GPU busy time (at least one activity running, over {streams:plural:stream|streams})",
    "detail.busy_overlap": ("{us:us1} of GPU busy time (at least one activity running, over "
                            "{streams:plural:stream|streams}; streams overlap for {overlap:us1})"),
    "detail.kinds": "busy by kind: {kinds}",
    "detail.kind": "{kind} {us:us1}",
    "kind.compute": "compute",
    "kind.communication": "communication",
    "kind.memory": "memory",
    "detail.kernels_head": "GPU activities, longest total first (one row per name and launch configuration):",
    "detail.op_count": "{op} ×{n:,}",
    "detail.more_kernels": "    … and {n:,} more ({us:us1} in all)",
    "kernel.row": ("    {kind}{collectives}, {calls:plural:call|calls}, {avg:us1} per call, {total:us1} in all "
                   "({share:percent0} of GPU activity time){configs}"),
    "kernel.collectives": " ({name} communication)",
    "kernel.configs": ", one of {n} launch configurations",
    "kernel.no_resources": "    occupancy: the trace has no launch resources for it",
    "kernel.kineto": "{pct:g}%",
    "kernel.not_recorded": "not recorded",
    "kernel.kineto_values": "{kineto} (most calls; {n} values)",
    "kernel.launch": ("    launch: block {block:dims}, grid {grid:dims}, {registers} registers/thread, "
                      "{kib:,.1f} KiB shared memory/block"),
    "kernel.no_properties": "    occupancy: theoretical: no device properties for its device in the trace",
    "kernel.no_properties_kineto": ("    occupancy: Kineto {kineto}; theoretical: no device properties for its device "
                                    "in the trace"),
    "kernel.occupancy": ("    occupancy: theoretical {theoretical:percent1} ({blocks:plural:block|blocks} per {unit} "
                         "with its own shared memory, limited by {limited_by})"),
    "kernel.occupancy_kineto": ("    occupancy: theoretical {theoretical:percent1} ({blocks:plural:block|blocks} per "
                                "{unit} with its own shared memory, limited by {limited_by}); Kineto {kineto} (its "
                                "rule gives {rule:percent1})"),
    "kernel.why": "    why: {reason}",
    "limit.cuda.warps": "warps",
    "limit.rocm.warps": "wavefronts",
    "limit.registers": "registers",
    "limit.shared memory": "shared memory",
    "limit.blocks": "blocks",
    "limit.grid": "grid",
    "unit.SM": "SM",
    "unit.SMs": "SMs",
    "unit.CU": "CU",
    "unit.CUs": "CUs",
    "unit.multiprocessor": "multiprocessor",
    "unit.multiprocessors": "multiprocessors",
    "occ.small_grid": "{grid:,} {grid:word:block|blocks} on {sms} {unit}: {idle:,} {unit} get no block",
    "occ.smem_over": ("{smem_kib:,.1f} KiB shared memory per block, over the default {limit_kib:g} KiB limit: "
                      "Kineto's rule fits no block"),
    "occ.waves": "{waves:.2f} waves: the last one fills {fill:pct0} of the GPU",
    # ------------------------------------------------------------ the detail: attention
    "att.compiled": "kernels launched with no ATen op around them ({graph}, compiled code) show the {backend} backend",
    "att.none": "no scaled_dot_product_attention call and no matmul-softmax-matmul chain",
    "att.backend": ("  {backend}, {direction}: {calls:plural:call|calls}, {per:us1} per call, {gpu:us1} in all "
                    "({share:pct1} of GPU activity time); main kernel {kernel}"),
    "att.cause_line": "    {cause}: {us:us1}",
    "att.backward_matched": "  backward on {backend}: {calls:plural:call|calls}, each backward matches a forward",
    "att.backward_unmatched": ("  backward on {backend}: {calls:plural:call|calls}, {forward:,} forward calls: they "
                               "do not match"),
    "math.likely": "  SDPA fell back to the math backend (unfused kernels). Likely reasons: {reasons}.",
    "math.check": ("  To check: run the call under `with torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION):` "
                   "(or {backends}): it raises if the backend cannot run, and the warnings it prints say why."),
    "math_reason.float32": "inputs in float32 (the fused kernels want float16 or bfloat16)",
    "math_reason.mask_or_head_size": ("an explicit attn_mask the fused backend does not take, or a head size it does "
                                      "not support"),
    "math_reason.disabled": "the fused backends disabled (torch.backends.cuda.enable_flash_sdp(False), sdpa_kernel)",
    "math_reason.cpu_or_arch": "a CPU tensor or a GPU the fused kernels were not built for",
    "att.hand": ("  hand-written attention: {chains:plural:matmul -> softmax -> matmul chain|matmul -> softmax -> "
                 "matmul chains} outside scaled_dot_product_attention; their kernels take {gpu:us1} ({share:pct1} of "
                 "GPU activity time): F.scaled_dot_product_attention fuses them"),
    "att.hand_copies": ("  hand-written attention: {chains:plural:matmul -> softmax -> matmul chain|matmul -> softmax "
                        "-> matmul chains} outside scaled_dot_product_attention, {copies:,} with a masked_fill copy of "
                        "the scores; their kernels take {gpu:us1} ({share:pct1} of GPU activity time): "
                        "F.scaled_dot_product_attention fuses them"),
    # ------------------------------------------------------------ the detail: streams and ranges
    "streams.head": ("Streams ({n}): busy time, idle time between activities by cause, launch delay (the verdicts "
                     "are the ranges', one per range):"),
    "streams.row": ("  device {device} stream {stream}: {kinds}; busy {busy:us1}; idle: host {host:us1}, other "
                    "stream {other_stream:us1}, other {other:us1}"),
    "streams.row_delay": ("  device {device} stream {stream}: {kinds}; busy {busy:us1}; idle: host {host:us1}, other "
                          "stream {other_stream:us1}, other {other:us1}, launch delay median {delay:us1}"),
    "streams.more": "  … and {n:,} more streams",
    "ranges.head": ("Ranges (record_function). CPU-bound: the GPU waits for the host for at least {host:pct0} of the "
                    "range's time, its launches not queued (GPU-bound where the median launch delay is {queue:g} µs "
                    "or more); GPU-bound: otherwise, with the GPU busy for at least {busy:pct0} of it; stalled: "
                    "otherwise (idle with its work launched):"),
    "ranges.more": "… and {n:,} more range names, shorter in all",
    "range.whole": "(whole trace): no record_function ranges, so the trace as one range",
    "range.head": "{name}: {n:plural:range|ranges}",
    "range.first_out": "{name}: {n:plural:range|ranges} (the first step left out: it holds the profiler's start)",
    "range.verdict": "  verdict: {verdict}: {why}",
    "range.cpu_only": "  profiled CPU time {host:us1}; no GPU activity launched in it",
    "range.sync_wait": " (after {us:us1} in synchronize calls)",
    "range.median": "  per range, median:",
    "range.median_some": "  per range, median, over the {n:,} with GPU work:",
    "range.host": "    profiled CPU time {us:us1:>12}{wait}",
    "range.span": ("    GPU span          {us:us1:>12}  first activity start to last end, "
                   "{n:plural:activity|activities}"),
    "range.window": "    range's time      {us:us1:>12}  its start to its last activity's end (or its CPU time's end)",
    "range.busy": "    GPU busy          {us:us1:>12}  running the range's own activities{streams}",
    "range.streams": " on {n} streams (they overlap for {us:us1})",
    "range.running": ("    GPU running       {us:us1:>12}  anything (this range's or earlier work): {share:pct0} of "
                      "the range's time"),
    "range.idle": "    GPU idle          {us:us1:>12}  waiting for the host {host:us1}, other {other:us1}",
    "range.delay": "    launch delay      {us:us1:>12}  from a launch call's end to its activity's start",
    "range.kinds": "    busy by kind      {kinds}",
    "range.no_gaps": "  no idle gaps between its activities",
    "range.gaps": ("  idle gaps on the GPU by pair of activities, largest total first (total, count, median, max, "
                   "cause):"),
    "range.gap": "    {total:us1:>12}  ×{count:,}  median {median:us1}  max {most:us1}  {cause}: {before} -> {after}",
    "range.more_gaps": "    … and {n:plural:more pair|more pairs}",
    "range.single_gaps": "  largest single gaps:",
    "range.single": "    {gap:us1:>12}  {cause}: {before} -> {after}",
    "range.single_after": "    {gap:us1:>12}  {cause}, after {by}: {before} -> {after}",
    "cause.host": "host",
    "cause.stream": "stream",
    "cause.other": "other",
    # ------------------------------------------------------------ a range's verdict: why
    "why.cpu_only": "no GPU activity was launched in it",
    "why.queued": ("activities start a median {delay:us1} after their launch call returned: the launches queue ahead "
                   "of the GPU, which is behind the host; the GPU runs work for {busy:pct0} of the range's time and "
                   "waits for the host for {host:pct0}"),
    "why.host": ("the GPU waits for the host for {host:pct0} of the range's time ({host_us:us1} per range): the next "
                 "launch was not yet issued"),
    "why.host_after": ("the GPU waits for the host for {host:pct0} of the range's time ({host_us:us1} per range): the "
                       "next launch was not yet issued; the largest waits follow {by} ({by_us:us1} per range)"),
    "why.gpu": "the GPU runs work for {busy:pct0} of the range's time and waits for the host for {host:pct0}",
    "why.gpu_delay": ("the GPU runs work for {busy:pct0} of the range's time and waits for the host for {host:pct0}; "
                      "activities start a median {delay:us1} after their launch call returned"),
    "why.stalled": ("the GPU is idle for {other:pct0} of the range's time with its next activity already launched "
                    "(waiting on an event or another stream's work, or the launch latency of many small kernels), and "
                    "waits for the host for {host:pct0}"),
    "why.stalled_delay": ("the GPU is idle for {other:pct0} of the range's time with its next activity already "
                          "launched (waiting on an event or another stream's work, or the launch latency of many "
                          "small kernels), and waits for the host for {host:pct0}; activities start a median "
                          "{delay:us1} after their launch call returned"),
    "why.profiler": ("with Kineto's own work ({overhead:us} per range, category overhead) counted as the profiler's, "
                     "the GPU waits for the host for {host:pct0} of the range's time and runs work for {busy:pct0}"),
    # ------------------------------------------------------------ the SVG timeline (output/svg.py)
    "svg.title": "Timeline of one profiled step: {labels}",
    "svg.title_window": "Timeline of a window of the trace: {labels}",
    "svg.desc": ("Lanes from the top: CPU ops by depth, runtime calls, and one lane per GPU stream. A line joins each"
                 " launch call to the GPU activity it launched; a bracket over the stream gathers the activities of a"
                 " call that launched several (a CUDA graph's replay). Hatched boxes are time the GPU is idle, "
                 "labelled with the cause."),
    "svg.step": "{label} · {step}: kernel time {kernel} µs, the median of {n} steps",
    "svg.steps": "{label} · {step}: {count} steps in a row around the median of {n} steps, kernel time {kernel} µs",
    "svg.window": "{label} · window {i} of {n}: {acts} GPU activities, kernel time {kernel} µs",
    "svg.ops": "CPU ops",
    "svg.runtime": "Runtime calls",
    "svg.stream": "GPU stream {stream}",
    "svg.axis": "µs from the step's start",
    "svg.axis_window": "µs from the window's start",
    "svg.kernel": "kernel",
    "svg.memcpy": "Memcpy",
    "svg.memset": "Memset",
    "svg.op": "op",
    "svg.launch": "launch call",
    "svg.runtime_other": "other runtime call",
    "svg.sync": "synchronize",
    "svg.link": "launch → activity",
    "svg.fan": "one call, several activities",
    "svg.fan_title": "{name}: {n} GPU activities from one call, {span} µs from the first's start to the last's end",
    "svg.gap": "GPU idle",
    "svg.host": "host",
    "svg.stream_gap": "stream",
    "svg.other": "launched",
    "svg.profiler": "profiler",
    "svg.host_long": "waiting for the host: the next launch call came after the GPU ran dry",
    "svg.stream_gap_long": "waiting on work on another stream",
    "svg.other_long": "already launched: launch latency or a dependency",
    "svg.profiler_long": "the profiler's own cost: the host was in the profiler's step boundary",
    "svg.idle": "GPU idle {us} µs: {why}",
    "svg.at": "{name}: start {start} µs, duration {dur} µs",
    "svg.cut": "{us} µs with nothing to draw, cut out",
}
