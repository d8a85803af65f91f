"""Which step of attention each GPU activity serves, read off the ATen operations that
launched it (outermost first, as analyze.py records them)."""

MATMUL_OPS = {"aten::bmm", "aten::mm", "aten::matmul", "aten::baddbmm", "aten::addmm"}
SOFTMAX_OPS = {"aten::_softmax", "aten::softmax"}
CONVERSION_OPS = {"aten::to", "aten::_to_copy"}
MASK_APPLY_OPS = {"aten::masked_fill", "aten::masked_fill_", "aten::add_", "aten::add"}
MASK_BUILD_OPS = {"aten::tril", "aten::triu", "aten::ones", "aten::scalar_tensor", "aten::where",
                  "aten::full", "aten::zeros", "aten::logical_not"}
SCALING_OPS = {"aten::mul", "aten::div", "aten::mul_", "aten::div_"}
FP32_GEMM_MARKS = ("f32f32", "sgemm", "_s1688", "tf32")

# every cause, in the order a forward pass meets them
CAUSES = ("dtype_conversion", "scaling", "mask_construction", "matmul_fp32", "matmul",
          "matmul_workspace", "copy", "mask_application", "softmax", "safe_softmax_extras",
          "fused_attention", "other")


def cause_of(stack, kind, name):
    """The cause of one GPU activity: its kind, kernel name and launching op stack."""
    ops = set(stack)
    if "aten::_safe_softmax" in ops:
        return "softmax" if ops & SOFTMAX_OPS else "safe_softmax_extras"
    if ops & SOFTMAX_OPS:
        return "softmax"
    if ops & MATMUL_OPS:
        if kind != "kernel":
            return "matmul_workspace"
        return "matmul_fp32" if any(m in name.lower() for m in FP32_GEMM_MARKS) else "matmul"
    if any("attention" in op and "scaled_dot_product_attention_math" not in op for op in stack[1:]) \
            or any(op.endswith("_attention_forward") for op in stack):
        return "fused_attention"
    if ops & CONVERSION_OPS:
        return "dtype_conversion"
    if "aten::clone" in ops or kind == "memcpy":
        return "copy"
    if ops & MASK_APPLY_OPS:
        return "mask_application"
    if ops & MASK_BUILD_OPS:
        return "mask_construction"
    if ops & SCALING_OPS:
        return "scaling"
    return "other"
