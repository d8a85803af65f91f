"""SDPA's recorded inputs in a made-up hostile trace (issue 50): what --ask-torch would make
on the GPU and what the doctor prints of them.

--ask-torch's cap counted q, k and v but not the mask (a bool mask [1, 1, 50000, 50000] asked
the device for 2.5 GB), negative strides made the size negative and passed it, and a 200-digit
dim with a 400-digit stride ended in OverflowError. Dims and strides negative or over
2**63 - 1 are malformed when the inputs are read (model/sdpa_inputs.py); the cap counts every
tensor the replay makes, by its shape and strides, before torch makes one: here the installed
torch (CPU) stands in for a GPU's, and any tensor it is asked to make fails the test. The weak
ones: an unknown mask dtype named as the query's, the doctor's own zip() error called
PyTorch's refusal, a 100,000-dim shape and 3,000 distinct shapes printing megabytes, a NaN
dropout making a group per call.
"""
import json
import types

import pytest
from madeup import call, sdpa_args, trace_of

from report.doctor import ask_torch
from report.doctor.cli import main
from report.doctor.explain import explain, report
from report.doctor.model.sdpa_inputs import MALFORMED, MAX_INT64, sdpa_inputs
from report.doctor.output import said
from report.doctor.output.text_detail import MAX_CALL_GROUPS
from report.doctor.rules import asked_table
from report.trace.reading import stream as reading_stream

FLASH = "aten::_scaled_dot_product_flash_attention"
Q = (1, 1, 50000, 64)
MASK = (1, 1, 50000, 50000)
HUGE_DIM, HUGE_STRIDE = int("9" * 200), int("9" * 400)


@pytest.fixture(autouse=True)
def no_table(monkeypatch, tmp_path):
    monkeypatch.setattr(asked_table, "FILE", tmp_path / "none.json")


def inputs(q, k=None, mask=None, mask_type="", strides=None, mask_strides=None, dropout="0."):
    """aten::scaled_dot_product_attention's recorded inputs, with the mask's strides where given."""
    args = sdpa_args(q, k or q, mask=mask, mask_type=mask_type, dropout=dropout, strides=strides)
    if mask_strides is not None:
        args["Input Strides"][3] = list(mask_strides)
    return args


def trace(*groups):
    """One SDPA call (flash) per recorded inputs."""
    events = []
    for i, args in enumerate(groups):
        events += call(1000.0 * i, FLASH, (), args, corr0=1 + 2 * i)
    return trace_of(*events)


@pytest.fixture
def torch_that_makes_nothing(monkeypatch):
    """The installed torch, as if it had a CUDA device, whose every tensor factory fails the
    test: what reaches it is what --ask-torch would have allocated on the GPU."""
    torch = pytest.importorskip("torch")
    made = []

    def made_one(*args, **kwargs):
        made.append(args)
        raise AssertionError(f"a tensor was made: {args!r:.200}")

    for factory in ("empty_strided", "empty", "zeros", "ones", "full"):
        monkeypatch.setattr(torch, factory, made_one)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "a made-up GPU")
    monkeypatch.setattr(ask_torch, "_torch", lambda: torch)
    return made


def counting_torch(monkeypatch):
    """A torch with a CUDA device whose tensors are (shape, strides, dtype) and whose checks all
    say yes: [the SDPAParams it was asked for]."""
    asked = []
    checks = {f"can_use_{b}_attention": lambda params, debug: True for b in ("cudnn", "flash", "efficient")}
    cuda = types.SimpleNamespace(SDPAParams=lambda *args: asked.append(args) or args, **checks)
    torch = types.SimpleNamespace(
        __version__="made-up", bfloat16="bf16", bool="b", backends=types.SimpleNamespace(cuda=cuda),
        cuda=types.SimpleNamespace(is_available=lambda: True, get_device_name=lambda: "a made-up GPU"),
        empty_strided=lambda shape, strides, dtype, device: (shape, strides, dtype))
    monkeypatch.setattr(ask_torch, "_torch", lambda: torch)
    return asked


# --- --ask-torch's cap holds before anything is made --------------------------------------

BAD = {
    "mask_of_2.5_GB": inputs(Q, mask=MASK, mask_type="bool", mask_strides=(50000 * 50000, 50000 * 50000, 50000, 1)),
    "mask_of_2.5_GB_strides_unrecorded": inputs(Q, mask=MASK, mask_type="bool"),
    "negative_strides": inputs((64, 64, 65536, 128), strides=[[-1, -1, -1, 1]] * 3),
    "200_digit_dim_400_digit_stride": inputs((1, 1, HUGE_DIM, 64), strides=[[HUGE_STRIDE, HUGE_STRIDE, 64, 1]] * 3),
    "400_digit_stride": inputs(Q, strides=[[HUGE_STRIDE, 64, 64, 1]] * 3),
    "dim_of_2**63": inputs((1, 1, 2**63, 64)),
    "negative_dim": inputs((1, 1, -5, 64)),
}


@pytest.mark.parametrize("name", BAD)
def test_nothing_the_cap_refuses_is_made(name, torch_that_makes_nothing):
    lines = ask_torch.ask(explain(trace(BAD[name])))
    assert not torch_that_makes_nothing and len(lines) == 3  # the header, the group, why it was not asked


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "pure-python"])
def test_a_200_digit_dim_is_malformed_through_the_command(fast, tmp_path, capsys, monkeypatch,
                                                          torch_that_makes_nothing):
    monkeypatch.setattr(reading_stream, "FAST_DECODER", reading_stream.FAST_DECODER and fast)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace(BAD["200_digit_dim_400_digit_stride"])), encoding="utf-8")
    assert main([str(path), "--ask-torch"]) == 0
    out = capsys.readouterr().out
    assert not torch_that_makes_nothing and "9" * 30 not in out
    assert said.inputs(sdpa_inputs(BAD["200_digit_dim_400_digit_stride"])) in out


def test_dims_and_strides_out_of_c10s_range_are_malformed_and_name_the_input():
    assert sdpa_inputs(BAD["negative_strides"]).malformed == ("strides", "query")
    assert sdpa_inputs(BAD["200_digit_dim_400_digit_stride"]).malformed == ("dims", "query")
    assert sdpa_inputs(BAD["400_digit_stride"]).malformed == ("strides", "query")
    assert sdpa_inputs(BAD["dim_of_2**63"]).malformed == ("dims", "query")
    assert sdpa_inputs(inputs(Q, mask=(1, 1, -1, 9), mask_type="bool")).malformed == ("dims", "attn_mask")
    edge = sdpa_inputs(inputs((1, 1, MAX_INT64, 64), strides=[[MAX_INT64, MAX_INT64, 64, 1]] * 3))
    assert edge.malformed is None and edge.query[2] == MAX_INT64
    x = sdpa_inputs(BAD["negative_strides"])  # no rule reads it, nothing of it is replayed
    assert x.query == x.key == () and x.mask is None and x.head_dim is None and x.lengths is None


def test_the_cap_counts_every_tensor_by_its_extent():
    """q, k, v and the mask: the mask alone passes 2 GiB; the same mask broadcast (strides 0,
    as an expanded one is recorded) spans one row and is made."""
    big = ask_torch._tensors(sdpa_inputs(BAD["mask_of_2.5_GB"]))
    assert isinstance(big, str)
    broadcast = sdpa_inputs(inputs(Q, mask=MASK, mask_type="bool", mask_strides=(0, 0, 0, 1)))
    made = ask_torch._tensors(broadcast)
    assert [t[0] for t in made] == [Q, Q, Q, MASK] and made[3][1] == (0, 0, 0, 1)
    assert sum(ask_torch._bytes(s, st, ask_torch.DTYPES[d]) for s, st, d in made) == 3 * 2 * 50000 * 64 + 50000
    assert ask_torch._bytes((4, 0, 8), (0, 8, 1), 2) == 0  # no element, no storage
    assert ask_torch._contiguous((3, 4, 5)) == (20, 5, 1)


def test_100000_dims_of_two_to_the_62_are_refused_without_multiplying_them_out():
    x = sdpa_inputs(inputs((2**62,) * 100_000, strides=[[]] * 3))  # strides unrecorded: contiguous ones
    assert x.malformed is None and isinstance(ask_torch._tensors(x), str)


# --- the weak ones ------------------------------------------------------------------------

def test_an_unknown_mask_dtype_is_named_as_the_masks():
    x = sdpa_inputs(inputs((1, 8, 128, 64), mask=(1, 1, 128, 128), mask_type="c10::Float8_e5m2"))
    why = ask_torch._tensors(x)
    assert isinstance(why, str) and "c10::Float8_e5m2" in why and "bfloat16" not in why


def test_strides_of_another_rank_are_malformed_not_pytorchs_refusal(monkeypatch):
    asked = counting_torch(monkeypatch)
    args = inputs((2, 8, 256, 64), strides=[[64, 1]] * 3)
    assert sdpa_inputs(args).malformed == ("rank", "query")
    lines = ask_torch.ask(explain(trace(args)))
    assert not asked and len(lines) == 3 and "PyTorch" not in lines[2] and "zip()" not in "".join(lines)


def test_a_shape_of_100000_dims_is_clipped():
    shape = (1,) * 99_998 + (128, 64)
    found = explain(trace(inputs(shape)))
    text = report(found)
    plain = report(explain(trace(inputs((1, 8, 128, 64)))))
    assert len(text) < len(plain) + 200
    (g,) = found["attention"]["calls"]
    assert g["parsed"].query == shape  # kept whole; clipped where printed
    line = said.inputs(g["parsed"])
    assert len(line) < 200 and "64" in line


def test_3000_distinct_shapes_show_and_replay_a_capped_number_of_groups(monkeypatch):
    asked = counting_torch(monkeypatch)
    found = explain(trace(*(inputs((1, 1, 16 + i, 64)) for i in range(3000))))
    assert len(found["attention"]["calls"]) == 3000
    text = report(found)
    plain = report(explain(trace(*(inputs((1, 1, 16 + i, 64)) for i in range(MAX_CALL_GROUPS)))))
    assert len(text) < len(plain) + 200  # the groups past the cap in one line
    lines = ask_torch.ask(found)
    assert len(asked) == MAX_CALL_GROUPS and len(lines) == 1 + MAX_CALL_GROUPS * 4 + 1


@pytest.mark.parametrize("dropout", ["nan", "-0.5", "1.5", "inf"])
def test_a_dropout_that_is_no_probability_is_malformed_and_one_group(dropout):
    found = explain(trace(*(inputs((1, 8, 128, 64), dropout=dropout) for _ in range(50))))
    (g,) = found["attention"]["calls"]
    assert g["calls"] == 50 and g["parsed"].malformed == ("dropout", "dropout_p")


def test_every_malformed_case_is_worded_in_both_languages():
    for what in MALFORMED:
        x = sdpa_inputs(inputs((1, 8, 128, 64)))
        bad = type(x)(query=(), key=(), value=(), dtype="", mask=None, mask_dtype=None, dropout=None,
                      is_causal=None, enable_gqa=None, last_stride_one=None, malformed=(what, "query"))
        assert {said.inputs(bad, lang) for lang in said.LANGS} != {said.inputs(x, "en")}
