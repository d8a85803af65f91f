"""The trace doctor's sentences in Norwegian Bokmål, as the site's Norwegian pages write them
(../shared/glossary.md, tests/data/terms_nb.yml): the same keys and placeholders as
words_en.py (tests/test_doctor_words.py), each sentence written anew, not word for word.
Numbers with a decimal comma and a no-break space between thousands and before µs, % and KiB
(output/said.py fills them). Code, API names, kernel names and PyTorch's own words stay as
they are.
"""

SENTENCES = {
    # ------------------------------------------------------------ the first screen
    "pace.head.host": "Tempoet settes av verten: GPU-en venter på oppstartene ({verdict}, over {scope})",
    "pace.head.gpu": "Tempoet settes av GPU-en: oppstartene står i kø foran den ({verdict}, over {scope})",
    "pace.head.gpu_busy": ("Tempoet settes av GPU-en: den arbeider gjennom hvert område, uten kø av oppstarter "
                           "({verdict}, over {scope})"),
    "pace.head.sync": ("Tempoet settes av en synkronisering: verten venter på GPU-en, så GPU-en på verten "
                       "({verdict}, over {scope})"),
    "pace.head.waiting": ("Tempoet settes av venting: GPU-en står ledig med arbeidet allerede startet (hendelser, "
                          "andre strømmer, latens) ({verdict}, over {scope})"),
    "pace.head.none": "Ingenting på GPU-en setter tempoet ({verdict}, over {scope})",
    "pace.head.no_scope": "Ingenting på GPU-en setter tempoet",
    "pace.no_range": "ingen områder med arbeid på GPU-en",
    "pace.busy": "GPU-en opptatt {share:pct0} av hvert område",
    "pace.host_wait": "venter på verten {share:pct0}",
    "pace.launches": "{n:,.0f} {n:word:oppstart|oppstarter} per område",
    "pace.launches_activities": "{n:,.0f} {n:word:oppstart|oppstarter} per område ({activities:,.0f} GPU-aktiviteter)",
    "pace.kernel": "mediankjerne {us:us}",
    "pace.delay": "oppstartsforsinkelse {us:us}",
    "pace.queued": "om lag {n:,.0f} {n:word:kjerne|kjerner} i kø (oppstartsforsinkelse / mediankjerne)",
    "pace.profiler": "profilerens eget arbeid {us:us}",
    "pace.with_stack": "tatt opp med with_stack=True: Python-stakkene legger til CPU-tid på hver operasjon",
    "graphs.replay": ("{graphs} spilles av her: {replays:plural:avspilling|avspillinger} av "
                      "{activities:plural:GPU-aktivitet|GPU-aktiviteter}, {gpu:us} ({share:pct0} av GPU-tiden)"),
    "graphs.replay_per_range": ("{graphs} spilles av her: {replays:plural:avspilling|avspillinger} av "
                                "{activities:plural:GPU-aktivitet|GPU-aktiviteter}, {gpu:us} ({share:pct0} av "
                                "GPU-tiden); {per:,.1f} per område, ved siden av {other:,.1f} andre oppstarter"),
    "comm.line": ("{collectives} på enhet {device} strøm {stream}: {comm:us}, {share:pct0} av den opptatte GPU-tiden "
                  "der; beregning kjører i {overlap:pct1} av den"),
    "comm.more": "… og {n:plural:strøm til|strømmer til} med {collectives} (strømmene i detaljene)",
    "head.attention": "Attention:",
    "att.row.chain": "{backend}, {direction}: {calls:plural:kjede|kjeder}, {gpu:us} ({share:pct1} av GPU-tiden)",
    "att.row.kernel": "{backend}, {direction}: {calls:plural:kjerne|kjerner}, {gpu:us} ({share:pct1} av GPU-tiden)",
    "att.row.call": "{backend}, {direction}: {calls:plural:kall|kall}, {gpu:us} ({share:pct1} av GPU-tiden)",
    "att.fell_back": "{row}: falt tilbake til math",
    "att.cause": "{cause} {us:us}",
    "att.copies": "{copies:,} kopier av scorene med masked_fill (ikke masked_fill_)",
    "att.with_why": "{row}; {why}",
    "call.ran": "{calls:plural:kall|kall} kjørte {backend}: {inputs}",
    "call.ran_why": "{calls:plural:kall|kall} kjørte {backend}: {inputs}; hvorfor: {why}",
    "call.no_backend": "ingen backend-operasjon",
    "warning": "advarsel: {warning}",
    "note.no_inputs": ("tracen har ikke SDPA-inndataene: ta den opp med torch.profiler.profile(record_shapes=True) "
                       "for å få vite hvorfor hver backend kjørte"),
    "head.findings": "Funn, størst tid på spill først:",
    "finding.head": "{i}. {title}: {time:us} på spill ({share:pct0})",
    "finding.evidence": "bevis: {evidence}",
    "finding.remedy": "råd: {remedy}",
    "finding.none": "Ingen funn: tracen har ikke bevisene for noen regel.",
    "finding.more": "… {n:plural:funn til|funn til} i JSON-en (--format json); detaljene følger.",
    "detail.follows": "Detaljene følger.",
    # the verdicts and what paced, as names
    "verdict.CPU-bound": "CPU-bundet",
    "verdict.GPU-bound": "GPU-bundet",
    "verdict.stalled": "står fast",
    "verdict.CPU only": "bare CPU",
    "verdict.none": "ingen",
    "direction.forward": "forward",
    "direction.backward": "backward",
    "direction.replayed": "avspilt",
    "direction.compiled": "kompilert",
    "direction.call": "kall",
    "range.whole_trace": "(hele tracen)",
    # ------------------------------------------------------------ the backends and the platforms
    "backend.flash": "flash (FlashAttention)",
    "backend.cudnn": "cuDNN",
    "backend.math": "math (ufusjonert: matmul, softmax, matmul)",
    "backend.flex": "Flex attention (Triton-kjerner)",
    "backend.overrideable": "en egen backend (overrideable)",
    "backend.preparation": "SDPAs klargjøring av inndataene (ingen backend)",
    "backend.flash_nested": "flash på nøstede ujevne tensorer (varlen)",
    "backend.efficient_nested": "efficient på nøstede ujevne tensorer (varlen)",
    "backend.inductor_fused": "Inductor-kjerner som fusjonerer operasjoner rundt et SDPA-kall (Triton)",
    "backend.hand_written": "håndskrevet (matmul, softmax, matmul utenfor SDPA)",
    "backend.efficient.cuda": "efficient (minneeffektiv, xFormers/CUTLASS)",
    "backend.efficient.rocm": "efficient (minneeffektiv)",
    "platform.graph.cuda": "avspilling av en CUDA-graf",
    "platform.graph.rocm": "avspilling av en HIP-graf",
    "platform.gpu.cuda": "en CUDA-GPU",
    "platform.gpu.rocm": "en AMD-GPU",
    "prep.head_dim": "fyller ut hodedimensjonen til et multiplum av 8 (pad_last_dim)",
    "prep.bool_mask": "gjør den boolske masken om til en additiv (convert_boolean_attn_mask)",
    "prep.gqa_repeat": "gjentar K/V-hodene for spørringshodene (GQA)",
    "prep.layout_copy": "kopierer inndata til et nytt minneoppsett",
    "prep.other": "annet arbeid før backendens operasjon",
    # ------------------------------------------------------------ a group of calls' inputs
    "inputs.mask": "{dtype} q [{q:list}], k [{k:list}], en {mask_dtype}-maske [{mask:list}]",
    "inputs.no_mask": "{dtype} q [{q:list}], k [{k:list}], ingen maske",
    "inputs.dropout": "dropout {p:g}",
    "list.more": "… {n:,} til",
    "inputs.malformed.dims": "registrerte inndata er ugyldige: en dimensjon i {which} er negativ eller over 2⁶³ − 1",
    "inputs.malformed.strides": "registrerte inndata er ugyldige: et skritt i {which} er negativt eller over 2⁶³ − 1",
    "inputs.malformed.rank": "registrerte inndata er ugyldige: {which} har ikke ett skritt per dimensjon",
    "inputs.malformed.dropout": "registrerte inndata er ugyldige: dropout_p er ikke et tall fra 0 til 1",
    "calls.more": "  … og {n:,} grupper med kall til",
    # ------------------------------------------------------------ why a group of calls ran its backend
    "why.line": "{backends}: {check} ({evidence})",
    "why.rule_no_table": "{lines} [doktorens lesning av sdp_utils.cpp (2.11): den har ingen registrert tabell]",
    "why.rule_no_match": ("{lines} [doktorens lesning av sdp_utils.cpp (2.11): ingen registrert betingelse har "
                          "inndata lik disse i det sjekkene leser]"),
    "why.rule_other_gpu": ("{lines} [doktorens lesning av sdp_utils.cpp (2.11) for compute capability {cc}: de "
                           "registrerte tabellene gjelder bare compute capability {theirs:list}, og svarene fra en "
                           "annen GPU-generasjon gjelder ikke for denne]"),
    "why.rule_no_gpu": ("{lines} [doktorens lesning av sdp_utils.cpp (2.11): tracen oppgir ingen GPU "
                        "(deviceProperties), så ingen registrert tabell svarer for den]"),
    "why.evidence_no": ("den registrerte betingelsen {condition} stopper i samme sjekk: PyTorch svarte nei til "
                        "{no:list}"),
    "why.evidence_yes": ("den registrerte betingelsen {condition} stopper i samme sjekk, men PyTorch svarte ja til "
                         "{yes:list}"),
    "why.first_either": ("{ran} kommer først i én av de to rekkefølgene PyTorch 2.11 kan følge her (cuDNN først på "
                         "compute capability 9.x og 10.x med en cuDNN nyere enn 9.15.0, ellers flash først; tracen "
                         "oppgir ingen cuDNN-versjon)"),
    "why.asked": "{by} kjørte {ran} for inndata som er like disse for sjekkene ({condition})",
    "why.it_said": "den svarte {said}",
    "why.said_no": "nei",
    "why.fixed": "med rettelsen den målte ({condition}) kjørte den {ran}",
    "why.trace_shows": "tracen viser {lines}",
    "why.first": "rekkefølgen i select_sdp_backend velger {ran} først for disse inndataene",
    "why.no_check": "{ran} kjørte; inndataene viser ingen sjekk som stopper backendene foran den",
    "why.warning": "{evidence}: {fix}",
    "reason.not_4d": "q er {ndim}-D [{query:list}]: de fusjonerte kjernene tar 4-D q, k, v",
    "reason.last_dim_stride": "skritt for q [{strides:list}]: den siste dimensjonen ligger ikke sammenhengende",
    "reason.last_dim_stride_unrecorded": "skritt (ikke registrert): den siste dimensjonen ligger ikke sammenhengende",
    "reason.dtype": "inndata i {dtype}: flash og cuDNN kjører {low:join: og }",
    "reason.dtype_efficient": "inndata i {dtype}",
    "reason.head_dim_too_large": "hodedimensjon {head_dim}: flash tar q, k, v med én hodedimensjon på inntil {most}",
    "reason.head_dim_alignment": ("hodedimensjon {head_dim} er ikke et multiplum av {align} (flash fyller den ut: "
                                  "pad_last_dim)"),
    "reason.mask": "en {mask_dtype}-attn_mask [{mask:list}]: flash tar ingen",
    "reason.mask_unknown_grad": ("en {mask_dtype}-attn_mask [{mask:list}]: flash tar ingen; backward-passet tar den "
                                 "som attn_bias, men tracen viser ikke om den krever gradient (en lært bias)"),
    "reason.bias_grad": "backward-passet regner ut gradienten til float-masken: en lært bias",
    "reason.gqa_heads": "{q_heads} spørringshoder og {kv_heads} nøkkel-/verdihoder uten enable_gqa=True",
    "reason.causal_non_square": "is_causal med {queries} spørringer og {keys} nøkler",
    "reason.gpu_generation": ("compute capability {cc}: flash og cuDNN kjører fra sm80, efficient fra sm50 "
                              "(maskinvaresjekkene i PyTorch)"),
    "reason.mask_shape": ("en attn_mask [{mask:list}] med en form som ikke kringkastes til batch, hoder, spørringer "
                          "og nøkler"),
    "reason.mask_grad_unknown": ("en float-attn_mask: cuDNN tar ingen som krever gradient, og tracen viser ikke om "
                                 "denne gjør det"),
    "reason.cudnn_one_key": "én nøkkel: cuDNN tar ikke nøkkellengde 1",
    "reason.not_first.one": ("tracen viser at {ran} kjørte der {free:list} kommer først i rekkefølgen "
                             "({order:list}{assumed}) og består hver sjekk inndataene viser: en låsing (sdpa_kernel, "
                             "enable_*_sdp(False)), som doktoren ikke leser ut av en trace; en build uten {free:list} "
                             "(Windows-hjulene til PyTorch har kommet uten flash: \"Torch was not compiled with flash "
                             "attention\"); eller en sjekk tracen ikke kan vise (lagringsforskyvningen til tensorene, "
                             "torch.use_deterministic_algorithms for cuDNN)"),
    "reason.not_first.many": ("tracen viser at {ran} kjørte der {free:list} kommer først i rekkefølgen "
                              "({order:list}{assumed}) og består hver sjekk inndataene viser: en låsing (sdpa_kernel, "
                              "enable_*_sdp(False)), som doktoren ikke leser ut av en trace; en build uten dem "
                              "(Windows-hjulene til PyTorch har kommet uten flash: \"Torch was not compiled with flash "
                              "attention\"); eller en sjekk tracen ikke kan vise (lagringsforskyvningen til tensorene, "
                              "torch.use_deterministic_algorithms for cuDNN)"),
    "order.table": "",
    "order.cudnn_first": (", rekkefølgen i PyTorch 2.11 på compute capability 9.x og 10.x med en cuDNN nyere enn "
                          "9.15.0: tracen oppgir ingen cuDNN-versjon"),
    "order.default": ", standardrekkefølgen i PyTorch 2.11",
    "order.either": (", eller standardrekkefølgen i PyTorch 2.11 der cuDNN ikke er nyere enn 9.15.0 (tracen oppgir "
                     "ingen versjon): først i begge"),
    "reason.causal_top_left": ("is_causal=True med {queries} {queries:word:spørring|spørringer} og {keys} nøkler: "
                               "masken er justert øverst til venstre, så den første spørringen ser bare den første "
                               "nøkkelen"),
    "reason.pinned": ("{ran} kjørte der {by} kjørte {their} for inndata som er like i det sjekkene leser "
                      "({condition}): en låsing (sdpa_kernel, enable_*_sdp(False)), en build uten {their}, eller noe "
                      "tracen ikke registrerer (en annen PyTorch- eller cuDNN-versjon enn tabellens, "
                      "torch.use_deterministic_algorithms, lagringsforskyvningen til tensorene)"),
    # what to change, by rules/why.py's fix keys
    "fix.reshape_4d": "gi q, k, v som 4-D tensorer [batch, heads, seq, head_dim] (legg ekstra dimensjoner inn i batch)",
    "fix.contiguous": ("kall .contiguous() på q, k, v (den siste dimensjonen må ha skritt 1; utfylling hjelper "
                       "ikke)"),
    "fix.singleton_stride": ("en hodedimensjon på 1 beholder skrittet gjennom .contiguous() (en slik tensor "
                             "regnes alt som sammenhengende): x.clone(memory_format=torch.contiguous_format) gir den "
                             "skritt 1; flash og cuDNN sjekker ikke skrittet til en dimensjon med størrelse 1"),
    "fix.head_dim_multiple_of_8": "en hodedimensjon som er et multiplum av 8",
    "fix.head_dim_at_most_256": "en hodedimensjon på høyst 256 (del opp hodene)",
    "fix.low_precision": ("kjør attention i bfloat16 eller float16 (torch.autocast(\"cuda\", dtype=torch.bfloat16), "
                          "eller konverter q, k, v)"),
    "fix.enable_gqa": "send enable_gqa=True (K/V beholder sine egne hoder)",
    "fix.bool_mask": ("er masken den kausale trekanten, dropp den og send is_causal=True; en utfyllingsmaske: "
                      "nøstede ujevne tensorer (torch.nested, layout=torch.jagged) kjører flash uten maske"),
    "fix.float_mask": ("flash tar ingen maske: is_causal=True der masken er kausal, FlexAttention for en bias på "
                       "scorene"),
    "fix.learned_bias": "en lært bias som score_mod i FlexAttention (torch.nn.attention.flex_attention)",
    "fix.need_weights_false": ("send need_weights=False til nn.MultiheadAttention (da kaller den SDPA; "
                               "need_weights=True regner ut vektene med bmm og softmax)"),
    "fix.check_pin": ("se etter sdpa_kernel(...) eller enable_*_sdp(False) rundt kallet (fjern den, så SDPA velger "
                      "selv), og spør builden (torch.backends.cuda.is_flash_attention_available())"),
    "fix.float16": "kjør attention i float16 (før sm80 tar de fusjonerte kjernene ikke bfloat16)",
    "fix.causal_lower_right": ("for én spørring, send is_causal=False (den kan se alle nøklene); for flere nye "
                               "spørringer, bruk torch.nn.attention.bias.causal_lower_right(L, S) som attn_mask"),
    # ------------------------------------------------------------ the findings: title, evidence, remedy, source
    "launch_bound.title": "Oppstartene fra verten setter tempoet: mange korte kjerner",
    "launch_bound.evidence": ("{launches:,.0f} oppstarter per område, mediankjerne {kernel:us}, median venting på "
                              "verten mellom to {gap:us}, GPU-en opptatt {busy:pct0}, oppstartsforsinkelse "
                              "{delay:us}"),
    "launch_bound.evidence_decode": ("{launches:,.0f} oppstarter per område, mediankjerne {kernel:us}, median venting "
                                     "på verten mellom to {gap:us}, GPU-en opptatt {busy:pct0}, "
                                     "oppstartsforsinkelse {delay:us}, {decode:,} SDPA-kall med én spørring "
                                     "(dekoding)"),
    "launch_bound.remedy": ("fang steget i en CUDA-graf: torch.compile(model, mode=\"reduce-overhead\"), "
                            "eller torch.cuda.graphs"),
    "launch_bound.remedy_decode": ("fang steget i en CUDA-graf: torch.compile(model, mode=\"reduce-overhead\"), "
                                   "eller torch.cuda.graphs; for generate(), en statisk KV-cache "
                                   "(cache_implementation=\"static\"), så dekodingssteget har faste former å fange"),
    "launch_bound.remedy_replayed": ("CUDA-grafer spilles allerede av her ({per:,.0f} per område): ventingen gjelder "
                                     "de {other:,.0f} oppstartene per område utenfor dem; fang dem også (et "
                                     "grafbrudd i torch.compile holder dem utenfor), eller start færre"),
    "launch_bound.remedy_replayed_copies": ("CUDA-grafer spilles av her allerede ({per:,.0f} per område); de "
                                            "{other:,.0f} oppstartene per område utenfor dem er kopier: inndataene "
                                            "til en graf kopiert inn i grafens statiske buffere (reduce-overhead i "
                                            "torch.compile kopierer hver inndata som ikke er en parameter eller har "
                                            "statisk adresse), ikke arbeid et grafbrudd har latt ligge utenfor: send "
                                            "de samme inndatatensorene hvert steg, eller merk dem "
                                            "(torch._dynamo.mark_static_address)"),
    "launch_bound.source": "CUDA Graphs (PyTorch-dokumentasjonen: torch.cuda.graphs, modusene til torch.compile)",
    "host_work.title": "Vertens eget arbeid mellom oppstartene setter tempoet",
    "host_work.evidence_op": ("{waits:,} ventinger på verten, median {gap:us} (over {over:us}: mer enn det tar å "
                              "starte en operasjon); den lengste {longest:us}, før {launch} i {op}"),
    "host_work.evidence": ("{waits:,} ventinger på verten, median {gap:us} (over {over:us}: mer enn det tar å "
                           "starte en operasjon); den lengste {longest:us}, før {kernel}"),
    "host_work.remedy": ("se hva verten kjører før de lengste ventingene (with_stack=True tar opp Python-rammene), "
                         "og flytt det ut av steget, eller la det gå samtidig med arbeid på GPU-en"),
    "host_work.source": "HTAs oppdeling av tomgangstiden (host wait)",
    "optimizer.title": "Optimereren går i løkke over parameterne ({name})",
    "optimizer.evidence": ("{launches:,.0f} oppstarter per optimeringssteg og ingen aten::_foreach_- eller "
                           "_fused_-operasjon i det"),
    "optimizer.remedy": "send foreach=True (eller fused=True) til optimereren: én oppstart per gruppe tensorer",
    "optimizer.source": "foreach- og fused-implementasjonene i torch.optim (torch/optim/adamw.py)",
    "hand.title": "Attention er skrevet for hånd (matmul, softmax, matmul)",
    "hand.title_mha": "nn.MultiheadAttention regner ut vektene sine (need_weights=True): bmm, softmax, bmm",
    "hand.evidence": "{chains:,} {chains:word:kjede|kjeder} utenfor SDPA",
    "hand.evidence_copies": ("{chains:,} {chains:word:kjede|kjeder} utenfor SDPA; {copies:,} kopier av scorene med "
                             "masked_fill (ikke masked_fill_)"),
    "hand.evidence_mha": ("{chains:,} {chains:word:kjede|kjeder} utenfor SDPA; {mha:,} fulgt av utprojeksjonen "
                          "(linear): need_weights-veien i F.multi_head_attention_forward"),
    "hand.evidence_copies_mha": ("{chains:,} {chains:word:kjede|kjeder} utenfor SDPA; {copies:,} kopier av scorene "
                                 "med masked_fill (ikke masked_fill_); {mha:,} fulgt av utprojeksjonen (linear): "
                                 "need_weights-veien i F.multi_head_attention_forward"),
    "hand.remedy": "kall torch.nn.functional.scaled_dot_product_attention: én fusjonert kjerne",
    "hand.copy_stays": "{remedy}; der en kopi må bli, masked_fill_ på stedet under no_grad",
    "hand.source": "anbefalingene fra originalstudien: fusjonert attention, ingen kopi med masked_fill",
    "native_weights.title": "nn.MultiheadAttention regner ut vektene sine (need_weights=True)",
    "native_weights.evidence": ("{calls:,} kall til aten::_native_multi_head_attention uten en fusjonert "
                                "attention-operasjon inni"),
    "native_weights.source": "attention.cpp: native_multi_head_attention_cuda",
    "fast_path.title_layer": ("Hurtigveien i nn.TransformerEncoderLayer får en utfyllingsmaske: attention kjøres "
                              "ufusjonert (bmm, _masked_softmax, bmm)"),
    "fast_path.title": ("Hurtigveien i nn.MultiheadAttention får en maske: attention kjøres ufusjonert (bmm, "
                        "_masked_softmax, bmm)"),
    "fast_path.evidence": ("{calls:,} kall til aten::_native_multi_head_attention med aten::_masked_softmax inni og "
                           "ingen SDPA-operasjon; {layer:,} av dem i aten::_transformer_encoder_layer_fwd, som sender "
                           "need_weights=False"),
    "fast_path.remedy": ("hurtigveien kaller SDPAs fusjonerte kjerner bare uten maske: kjør lagene i "
                         "nn.TransformerEncoder(..., enable_nested_tensor=True), som gjør src_key_padding_mask om "
                         "til en nøstet tensor og ikke sender noen maske (eval, uten gradient, batch_first=True, "
                         "norm_first=False, et partall nhead, ingen src_mask: den advarer der ett av dem svikter), "
                         "eller kall F.scaled_dot_product_attention med masken (efficient og cuDNN tar en)"),
    "fast_path.source": ("attention.cpp: native_multi_head_attention_cuda (SDPA bare uten maske); "
                         "torch/nn/modules/transformer.py: TransformerEncoder.forward (_nested_tensor_from_mask)"),
    "bool_mask.title": "SDPA får en boolsk maske den må gjøre om, og flash kan ikke kjøre",
    "bool_mask.evidence": ("{calls:,} kall med en boolsk maske [{mask:list}], is_causal=False; å gjøre den om tar "
                           "{time:us}"),
    "bool_mask.remedy_square": ("er masken den kausale trekanten, send is_causal=True og ingen maske: flash kjører, "
                                "og masken gjøres aldri om; {window}"),
    "bool_mask.remedy_padding": ("fyller den ut sekvenser, kjører nøstede ujevne tensorer "
                                 "(torch.nested.nested_tensor(..., layout=torch.jagged)) flash uten utfylling eller "
                                 "maske; {window}"),
    "bool_mask.remedy_other": ("et glidende vindu eller et annet mønster: blokkmasken i FlexAttention "
                               "(create_block_mask) hopper over de maskerte blokkene"),
    "bool_mask.source": "sdp_utils.cpp: check_for_attn_mask; attention.cpp: convert_boolean_attn_mask",
    "head_dim.title": "Hodedimensjonen {head_dim} er ikke et multiplum av 8",
    "head_dim.evidence": "{calls:plural:kall|kall}; å fylle den ut til {up} tar {time:us}",
    "head_dim.remedy": "velg en hodedimensjon som er et multiplum av 8 ({down} eller {up})",
    "head_dim.remedy_up": ("en hodedimensjon på {up} eller mer, et multiplum av 8: SDPA fyller alt ut {head_dim} "
                           "til {up}, så kjernene gjør arbeidet til {up}"),
    "head_dim.source": "attention.cpp: pad_last_dim; sdp_utils.cpp: check_head_dim_size_mem_efficient",
    "math.title": "SDPA kjørte den ufusjonerte math-backenden",
    "math.evidence_unrecorded": ("aten::_scaled_dot_product_attention_math kjørte; tracen har ikke inndataene "
                                 "(record_shapes=True) som kan si hvorfor"),
    "math.remedy_check": ("sjekk med torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION): den gir en feil og "
                          "sier hvorfor"),
    "math.source": "sdp_utils.cpp: select_sdp_backend; funnet fra originalstudien om låsing til math",
    "slow.title": "SDPA kjørte efficient-backenden, ikke flash",
    "slow.source": "sdp_utils.cpp: can_use_flash_attention",
    "host_sync.title": "Verten venter på GPU-en inne i løkken ({by})",
    "host_sync.evidence": "de største tomgangene på GPU-en kommer etter {by}: {per:us} per område",
    "host_sync.remedy": "flytt {by} ut av løkken, eller les verdien bare hvert N-te steg",
    "host_sync.source": "CUDA-strømmer: å lese på verten synkroniserer",
    "step_sync.title": "En synkronisering i hvert steg setter tempoet i løkken ({by})",
    "step_sync.evidence": ("hvert område ender i {by}, som venter {wait:us} på at GPU-en blir ferdig; så står GPU-en "
                           "ledig {gap:us} til neste områdes første oppstart"),
    "step_sync.remedy": ("GPU-en kan ikke komme foran et steg som venter på den: for å ta tiden, synkroniser én gang "
                         "rundt mange steg eller ta tiden med CUDA-hendelser (torch.cuda.Event(enable_timing=True)); "
                         "ellers, flytt {by} ut av løkken"),
    "step_sync.source": "CUDA-strømmer: en synkronisering tømmer køen (torch.cuda.synchronize)",
    "bias.title": "En maske eller bias går gjennom backward-passet i SDPA: flash kan ikke kjøre den",
    "bias.evidence": "{calls:,} backward-kall i efficient attention med attn_bias som inndata",
    "bias.remedy": ("en lært bias som score_mod i FlexAttention (torch.nn.attention.flex_attention), eller ingen "
                    "maske og is_causal=True der biasen er kausal"),
    "bias.source": "sdp_utils.cpp: check_for_attn_mask",
    "comm.title": "Kommunikasjonen kjører med lite beregning ved siden av seg (strøm {stream})",
    "comm.evidence": ("{kinds} på enhet {device} strøm {stream}: {comm:us}, {share:pct0} av enhetens opptatte "
                      "GPU-tid; beregning kjører i {overlap:pct1} av den"),
    "comm.collectives": "kollektive operasjoner",
    "comm.remedy.all_reduce": ("la all-reduce gå under backward-passet: DistributedDataParallel samler gradientene i "
                               "bøtter og starter hver bøttes all-reduce når den er full (bucket_cap_mb; no_sync ved "
                               "gradientakkumulering), så intet steg venter på én all-reduce til slutt"),
    "comm.remedy.all_gather": ("hent neste lags all-gather på forhånd: forward_prefetch=True og "
                               "backward_prefetch=BackwardPrefetch.BACKWARD_PRE i FSDP (FSDP2: "
                               "reshard_after_forward, set_modules_to_forward_prefetch)"),
    "comm.remedy.reduce_scatter": ("la reduce-scatter gå under backward-passet: backward_prefetch="
                                   "BackwardPrefetch.BACKWARD_PRE i FSDP, og større innpakkede enheter så hver "
                                   "kollektiv operasjon har beregning å gjemme seg bak"),
    "comm.remedy.other": ("start de kollektive operasjonene asynkront (async_op=True), og vent på dem først der "
                          "resultatet trengs, så beregningen går imens"),
    "comm.source": "HTAs overlapp mellom kommunikasjon og beregning (TraceAnalysis.get_comm_comp_overlap)",
    "pace_only.gpu.title": "GPU-ens eget arbeid setter tempoet",
    "pace_only.gpu.evidence": "oppstartene ligger foran GPU-en",
    "pace_only.gpu.evidence_top": ("oppstartene ligger foran GPU-en; den lengste: {kernel}, {share:pct0} av "
                                   "GPU-aktivitetstiden"),
    "pace_only.gpu.evidence_busy": "GPU-en arbeider gjennom hvert område, uten kø av oppstarter",
    "pace_only.gpu.evidence_top_busy": ("GPU-en arbeider gjennom hvert område, uten kø av oppstarter; den lengste: "
                                        "{kernel}, {share:pct0} av GPU-aktivitetstiden"),
    "pace_only.gpu.remedy": ("gjør arbeidet på GPU-en kortere, det lengste først (de første radene i detaljene): det "
                             "er ikke verten som venter"),
    "pace_only.waiting.title": "GPU-en står ledig med arbeidet startet",
    "pace_only.waiting.evidence": "ledig {share:pct0} av områdets tid med neste aktivitet allerede startet",
    "pace_only.waiting.remedy": ("se hva tomgangene venter på (tomgangene merket annet eller strøm i detaljene: en "
                                 "hendelse, arbeid på en annen strøm, en kollektiv operasjon)"),
    "pace_only.graphs.title": "Verten setter tempoet mellom avspillingene av grafene",
    "pace_only.graphs.evidence": ("fangede grafer spilles allerede av her: GPU-en venter på verten mellom "
                                  "avspillingene"),
    "pace_only.graphs.remedy": ("legg mer arbeid i hver avspilling (fang mer av steget, eller flere steg i én graf), "
                                "eller la verten gjøre mindre mellom avspillingene (de største tomgangene i detaljene "
                                "sier etter hva)"),
    "pace_only.graphs.source": "dommen om tempoet (explain.py); CUDA Graphs (torch.cuda.graphs)",
    "pace_only.host.title": "Verten setter tempoet, og ingen regels råd passer",
    "pace_only.host.evidence": ("det er ingen venting på verten igjen mellom to oppstarter når "
                                "synkroniseringskall, lesinger på verten og profilersteg er holdt utenfor"),
    "pace_only.host.evidence_gap": "median venting på verten mellom to aktiviteter er {gap:us}",
    "pace_only.host.evidence_few": ("median venting på verten mellom to aktiviteter er {gap:us}, ved siden av "
                                    "{launches:,.0f} {launches:word:oppstart|oppstarter} per område og en mediankjerne "
                                    "på {kernel:us}: vertens vei gjennom hvert kall, ikke mange korte kjerner"),
    "pace_only.host.remedy": ("se hva verten kjører i områdets største tomganger (detaljene); with_stack=True tar opp "
                              "Python-rammene"),
    "pace_only.source": "dommen om tempoet (explain.py)",
    "repeat_kv.title": "K og V gjentas for hånd til spørringens hoder før SDPA",
    "repeat_kv.evidence": ("{calls:plural:SDPA-kall|SDPA-kall} med like mange K/V-hoder som spørringen etter "
                           "{repeats:plural:gjentakelse|gjentakelser} ({op}) rett før; kopiene tar denne tiden"),
    "repeat_kv.evidence_heads": ("{calls:plural:SDPA-kall|SDPA-kall} med like mange K/V-hoder som spørringen etter "
                                 "{repeats:plural:gjentakelse|gjentakelser} ({op}) til spørringens {q} rett før; "
                                 "kopiene tar denne tiden"),
    "repeat_kv.remedy": ("send K og V med sine egne hoder og enable_gqa=True (F.scaled_dot_product_attention, "
                         "torch 2.5 og senere): flash og cuDNN tar dem uten gjentakelse; efficient gjør det ikke "
                         "(float32 kjører da math)"),
    "repeat_kv.source": ("sdp_utils.cpp: check_batch_size_and_num_heads_dense (støtter GQA: flash, cuDNN); "
                         "gqa-betingelsen i den innspilte tabellen"),
    "gemm.title_unrecorded": "En matrisemultiplikasjon kjører en kjerne med smal justering",
    "gemm.evidence_unrecorded": ("{kernel} ({tags:list}); ingen former er registrert for operasjonen som startet "
                                 "den (record_shapes=True), så dette er lest av kjernenavnet alene: en operand er "
                                 "justert til færre enn 8 elementer"),
    "gemm.remedy_unrecorded": ("ta opp med record_shapes=True for å se størrelsene; der én ikke er et multiplum av 8, "
                               "fyll den ut (et vokabular, en hodedimensjon) til et multiplum av 8, helst 64"),
    "gemm.source_unrecorded": "kjernenavnene i CUTLASS (alignN: operander justert til N elementer)",
    "gemm.title": "En matrisemultiplikasjon kjører en kjerne med smal justering: {sizes} er ikke et multiplum av 8",
    "gemm.evidence": "{kernel} ({tags:list}) fra {op} med inndata {shapes}",
    "gemm.remedy": "fyll ut størrelsen til et multiplum av 8, helst 64 ({pads})",
    "gemm.pad": "{size:,} -> {padded:,}",
    "gemm.source": "kjernenavnene i CUTLASS (alignN); operasjonens registrerte Input Dims",
    # ------------------------------------------------------------ the detail: devices, GPU activities
    "detail.gpu": "GPU: {devices}",
    "detail.no_devices": "GPU: ingen enhetsegenskaper i tracen",
    "device": "{name} (compute capability {major}.{minor}, {sms} {unit})",
    "device.rocm": "{name} (compute capability {major}.{minor}, {sms} {unit}, ROCm-egenskaper)",
    "device.count": "{n:,} × {device}",
    "device.more": ", … og {n:,} til",
    "detail.activities": ("{n:,} GPU-aktiviteter, {us:us1} GPU-aktivitetstid (varighetene lagt sammen; andelene "
                          "nedenfor er av den)"),
    "detail.busy": ("{us:us1} opptatt tid på GPU-en (minst én aktivitet kjører, over "
                    "{streams:plural:strøm|strømmer})"),
    "detail.busy_overlap": ("{us:us1} opptatt tid på GPU-en (minst én aktivitet kjører, over "
                            "{streams:plural:strøm|strømmer}; strømmene overlapper i {overlap:us1})"),
    "detail.kinds": "opptatt etter slag: {kinds}",
    "detail.kind": "{kind} {us:us1}",
    "kind.compute": "beregning",
    "kind.communication": "kommunikasjon",
    "kind.memory": "minne",
    "detail.kernels_head": "GPU-aktiviteter, lengst totaltid først (én rad per navn og oppstartskonfigurasjon):",
    "detail.op_count": "{op} ×{n:,}",
    "detail.more_kernels": "    … og {n:,} til ({us:us1} i alt)",
    "kernel.row": ("    {kind}{collectives}, {calls:plural:kall|kall}, {avg:us1} per kall, {total:us1} i alt "
                   "({share:percent0} av GPU-aktivitetstiden){configs}"),
    "kernel.collectives": " ({name}-kommunikasjon)",
    "kernel.configs": ", én av {n} oppstartskonfigurasjoner",
    "kernel.no_resources": "    okkupans: tracen har ikke oppstartsressursene for den",
    "kernel.kineto": "{pct:g}\u00a0%",
    "kernel.not_recorded": "ikke registrert",
    "kernel.kineto_values": "{kineto} (de fleste kall; {n} verdier)",
    "kernel.launch": ("    oppstart: blokk {block:dims}, grid {grid:dims}, {registers} registre/tråd, "
                      "{kib:,.1f}\u00a0KiB delt minne/blokk"),
    "kernel.no_properties": "    okkupans: teoretisk: ingen egenskaper for enheten den kjørte på i tracen",
    "kernel.no_properties_kineto": ("    okkupans: Kineto {kineto}; teoretisk: ingen egenskaper for enheten den kjørte "
                                    "på i tracen"),
    "kernel.occupancy": ("    okkupans: teoretisk {theoretical:percent1} ({blocks:plural:blokk|blokker} per {unit} "
                         "med sitt eget delte minne, begrenset av {limited_by})"),
    "kernel.occupancy_kineto": ("    okkupans: teoretisk {theoretical:percent1} ({blocks:plural:blokk|blokker} per "
                                "{unit} med sitt eget delte minne, begrenset av {limited_by}); Kineto {kineto} "
                                "(regelen dens gir {rule:percent1})"),
    "kernel.why": "    hvorfor: {reason}",
    "limit.cuda.warps": "warper",
    "limit.rocm.warps": "wavefronts",
    "limit.registers": "registre",
    "limit.shared memory": "delt minne",
    "limit.blocks": "blokker",
    "limit.grid": "grid",
    "unit.SM": "SM",
    "unit.SMs": "SM-er",
    "unit.CU": "CU",
    "unit.CUs": "CU-er",
    "unit.multiprocessor": "multiprocessor (HIPs ord)",
    "unit.multiprocessors": "multiprocessorer (HIPs ord)",
    "occ.small_grid": "{grid:,} {grid:word:blokk|blokker} på {sms} {unit}: {idle:,} {unit} får ingen blokk",
    "occ.smem_over": ("{smem_kib:,.1f}\u00a0KiB delt minne per blokk, over standardgrensen på "
                      "{limit_kib:g}\u00a0KiB: Kinetos regel får ikke plass til noen blokk"),
    "occ.waves": "{waves:.2f} bølger: den siste fyller {fill:pct0} av GPU-en",
    # ------------------------------------------------------------ the detail: attention
    "att.compiled": ("kjerner startet uten noen ATen-operasjon rundt seg ({graph}, kompilert kode) viser "
                     "{backend}-backenden"),
    "att.none": "ingen kall til scaled_dot_product_attention og ingen kjede av matmul, softmax og matmul",
    "att.backend": ("  {backend}, {direction}: {calls:plural:kall|kall}, {per:us1} per kall, {gpu:us1} i alt "
                    "({share:pct1} av GPU-aktivitetstiden); hovedkjerne {kernel}"),
    "att.cause_line": "    {cause}: {us:us1}",
    "att.backward_matched": ("  backward på {backend}: {calls:plural:kall|kall}, hvert backward-kall har sitt "
                             "forward-kall"),
    "att.backward_unmatched": ("  backward på {backend}: {calls:plural:kall|kall}, {forward:,} forward-kall: de "
                               "stemmer ikke overens"),
    "math.likely": "  SDPA falt tilbake til math-backenden (ufusjonerte kjerner). Sannsynlige grunner: {reasons}.",
    "math.check": ("  Slik sjekker du: kjør kallet under `with torch.nn.attention.sdpa_kernel("
                   "SDPBackend.FLASH_ATTENTION):` (eller {backends}): det gir en feil hvis backenden ikke kan kjøre, "
                   "og advarslene som skrives ut, sier hvorfor."),
    "math_reason.float32": "inndata i float32 (de fusjonerte kjernene vil ha float16 eller bfloat16)",
    "math_reason.mask_or_head_size": ("en eksplisitt attn_mask den fusjonerte backenden ikke tar, eller en "
                                      "hodestørrelse den ikke støtter"),
    "math_reason.disabled": ("de fusjonerte backendene er slått av (torch.backends.cuda.enable_flash_sdp(False), "
                             "sdpa_kernel)"),
    "math_reason.cpu_or_arch": "en CPU-tensor, eller en GPU de fusjonerte kjernene ikke er bygd for",
    "att.hand": ("  håndskrevet attention: {chains:plural:kjede|kjeder} av matmul -> softmax -> matmul utenfor "
                 "scaled_dot_product_attention; kjernene deres tar {gpu:us1} ({share:pct1} av "
                 "GPU-aktivitetstiden): F.scaled_dot_product_attention fusjonerer dem"),
    "att.hand_copies": ("  håndskrevet attention: {chains:plural:kjede|kjeder} av matmul -> softmax -> matmul utenfor "
                        "scaled_dot_product_attention, {copies:,} med en kopi av scorene fra masked_fill; kjernene "
                        "deres tar {gpu:us1} ({share:pct1} av GPU-aktivitetstiden): "
                        "F.scaled_dot_product_attention fusjonerer dem"),
    # ------------------------------------------------------------ the detail: streams and ranges
    "streams.head": ("Strømmer ({n}): opptatt tid, tomgang mellom aktivitetene etter årsak, oppstartsforsinkelse "
                     "(dommene er områdenes, én per område):"),
    "streams.row": ("  enhet {device} strøm {stream}: {kinds}; opptatt {busy:us1}; tomgang: verten {host:us1}, "
                    "annen strøm {other_stream:us1}, annet {other:us1}"),
    "streams.row_delay": ("  enhet {device} strøm {stream}: {kinds}; opptatt {busy:us1}; tomgang: verten "
                          "{host:us1}, annen strøm {other_stream:us1}, annet {other:us1}, median "
                          "oppstartsforsinkelse {delay:us1}"),
    "streams.more": "  … og {n:,} strømmer til",
    "ranges.head": ("Områder (record_function). CPU-bundet: GPU-en venter på verten minst {host:pct0} av områdets "
                    "tid, uten at oppstartene står i kø (GPU-bundet der median oppstartsforsinkelse er "
                    "{queue:g}\u00a0µs eller mer); GPU-bundet: ellers, med GPU-en opptatt minst {busy:pct0} av den; "
                    "står fast: ellers (ledig med arbeidet startet):"),
    "ranges.more": "… og {n:,} områdenavn til, kortere i alt",
    "range.whole": "(hele tracen): ingen record_function-områder, så hele tracen som ett område",
    "range.head": "{name}: {n:plural:område|områder}",
    "range.first_out": ("{name}: {n:plural:område|områder} (det første steget holdt utenfor: det inneholder "
                        "starten på profileren)"),
    "range.verdict": "  dom: {verdict}: {why}",
    "range.cpu_only": "  profilert CPU-tid {host:us1}; ingen GPU-aktivitet startet i det",
    "range.sync_wait": " (etter {us:us1} i synkroniseringskall)",
    "range.median": "  per område, median:",
    "range.median_some": "  per område, median, over de {n:,} med arbeid på GPU-en:",
    "range.host": "    profilert CPU-tid     {us:us1:>12}{wait}",
    "range.span": ("    GPU-spenn             {us:us1:>12}  første aktivitets start til siste slutt, "
                   "{n:plural:aktivitet|aktiviteter}"),
    "range.window": ("    områdets tid          {us:us1:>12}  fra starten til slutten av siste aktivitet (eller "
                     "av CPU-tiden)"),
    "range.busy": "    GPU opptatt           {us:us1:>12}  kjører områdets egne aktiviteter{streams}",
    "range.streams": " på {n} strømmer (de overlapper i {us:us1})",
    "range.running": ("    GPU kjører            {us:us1:>12}  hva som helst (dette områdets eller tidligere "
                      "arbeid): {share:pct0} av områdets tid"),
    "range.idle": "    GPU ledig             {us:us1:>12}  venter på verten {host:us1}, annet {other:us1}",
    "range.delay": ("    oppstartsforsinkelse  {us:us1:>12}  fra slutten av et oppstartskall til starten av "
                    "aktiviteten"),
    "range.kinds": "    opptatt etter slag    {kinds}",
    "range.no_gaps": "  ingen tomgang mellom aktivitetene",
    "range.gaps": ("  tomgang på GPU-en etter par av aktiviteter, størst total først (total, antall, median, "
                   "maks, årsak):"),
    "range.gap": "    {total:us1:>12}  ×{count:,}  median {median:us1}  maks {most:us1}  {cause}: {before} -> {after}",
    "range.more_gaps": "    … og {n:plural:par til|par til}",
    "range.single_gaps": "  største enkelttomganger:",
    "range.single": "    {gap:us1:>12}  {cause}: {before} -> {after}",
    "range.single_after": "    {gap:us1:>12}  {cause}, etter {by}: {before} -> {after}",
    "cause.host": "verten",
    "cause.stream": "strøm",
    "cause.other": "annet",
    # ------------------------------------------------------------ a range's verdict: why
    "why.cpu_only": "ingen GPU-aktivitet ble startet i det",
    "why.queued": ("aktivitetene starter median {delay:us1} etter at oppstartskallet returnerte: oppstartene står i kø "
                   "foran GPU-en, som ligger bak verten; GPU-en kjører arbeid {busy:pct0} av områdets tid og venter "
                   "på verten {host:pct0}"),
    "why.host": ("GPU-en venter på verten {host:pct0} av områdets tid ({host_us:us1} per område): neste oppstart var "
                 "ikke gitt ennå"),
    "why.host_after": ("GPU-en venter på verten {host:pct0} av områdets tid ({host_us:us1} per område): neste "
                       "oppstart var ikke gitt ennå; de største ventingene kommer etter {by} ({by_us:us1} per "
                       "område)"),
    "why.gpu": "GPU-en kjører arbeid {busy:pct0} av områdets tid og venter på verten {host:pct0}",
    "why.gpu_delay": ("GPU-en kjører arbeid {busy:pct0} av områdets tid og venter på verten {host:pct0}; "
                      "aktivitetene starter median {delay:us1} etter at oppstartskallet returnerte"),
    "why.stalled": ("GPU-en er ledig {other:pct0} av områdets tid med neste aktivitet allerede startet (venter på en "
                    "hendelse eller på arbeid på en annen strøm, eller latensen når mange små kjerner startes), og "
                    "venter på verten {host:pct0}"),
    "why.stalled_delay": ("GPU-en er ledig {other:pct0} av områdets tid med neste aktivitet allerede startet (venter "
                          "på en hendelse eller på arbeid på en annen strøm, eller latensen når mange små kjerner "
                          "startes), og venter på verten {host:pct0}; aktivitetene starter median {delay:us1} etter "
                          "at oppstartskallet returnerte"),
    "why.profiler": ("når Kinetos eget arbeid ({overhead:us} per område, kategorien `overhead`) regnes som "
                     "profilerens, venter GPU-en på verten {host:pct0} av områdets tid og kjører arbeid "
                     "{busy:pct0}"),
    # ------------------------------------------------------------ the SVG timeline (output/svg.py)
    "svg.title": "Tidslinje for ett profilert steg: {labels}",
    "svg.title_window": "Tidslinje for et utsnitt av sporet: {labels}",
    "svg.desc": ("Baner ovenfra: CPU-operasjoner etter dybde, runtime-kall og én bane per GPU-strøm. En strek binder "
                 "hvert oppstartskall til GPU-aktiviteten det startet; en klamme over strømmen samler aktivitetene "
                 "ett kall startet flere av (en CUDA-graf som spilles av). Skraverte felt er tid GPU-en står ledig, "
                 "merket med årsaken."),
    "svg.step": "{label} · {step}: kjernetid {kernel} µs, median av {n} steg",
    "svg.steps": "{label} · {step}: {count} steg på rad rundt median av {n} steg, kjernetid {kernel} µs",
    "svg.window": "{label} · utsnitt {i} av {n}: {acts} GPU-aktiviteter, kjernetid {kernel} µs",
    "svg.ops": "CPU-operasjoner",
    "svg.runtime": "Runtime-kall",
    "svg.stream": "GPU-strøm {stream}",
    "svg.axis": "µs fra stegets start",
    "svg.axis_window": "µs fra utsnittets start",
    "svg.kernel": "kjerne",
    "svg.memcpy": "Memcpy",
    "svg.memset": "Memset",
    "svg.op": "operasjon",
    "svg.launch": "oppstartskall",
    "svg.runtime_other": "annet runtime-kall",
    "svg.sync": "synkronisering",
    "svg.link": "start → aktivitet",
    "svg.fan": "ett kall, flere aktiviteter",
    "svg.fan_title": "{name}: {n} GPU-aktiviteter fra ett kall, {span} µs fra den første starter til den siste slutter",
    "svg.gap": "GPU ledig",
    "svg.host": "CPU",
    "svg.stream_gap": "strøm",
    "svg.other": "latens",
    "svg.profiler": "profiler",
    "svg.host_long": "venter på CPU-en: neste oppstartskall kom etter at GPU-en var tom for arbeid",
    "svg.stream_gap_long": "venter på arbeid på en annen strøm",
    "svg.other_long": "allerede startet: oppstartsforsinkelse eller en avhengighet",
    "svg.profiler_long": "profilerens egen kostnad: CPU-en var i profilerens stegskifte",
    "svg.idle": "GPU ledig {us} µs: {why}",
    "svg.at": "{name}: start {start} µs, varighet {dur} µs",
    "svg.cut": "{us} µs uten noe å tegne er kuttet bort",
}
