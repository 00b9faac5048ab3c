# 2026-09-03 .. 2026-09-04

CHANGES += [
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1215,
        "author": "hana",
        "merged": "2026-09-03 09:00",
        "title": "refactor: move the sampler to lumen.sampling and split out penalties",
        "body": """
* move layers/sampler.py to sampling/sampler.py, it never was a layer

* penalties get their own module so that the fused penalty kernel can replace them in one place

* update imports
""",
        "ops": [
            rename("python/lumen/layers/sampler.py", "python/lumen/sampling/sampler.py"),
            edit(
                "python/lumen/sampling/sampler.py",
                r'''
"""Token sampling: penalties, temperature, top-k / top-p / min-p."""
''',
                r'''
"""Token sampling: temperature, top-k / top-p / min-p.

Penalties live in lumen.sampling.penalties and are applied first.
"""
''',
            ),
            edit(
                "python/lumen/sampling/sampler.py",
                r'''
from lumen.layers.logits_processor import LogitsProcessorOutput
''',
                r'''
from lumen.layers.logits_processor import LogitsProcessorOutput
from lumen.sampling.penalties import apply_penalties
''',
            ),
            edit(
                "python/lumen/sampling/sampler.py",
                r'''
        logits = self._apply_penalties(logits, sampling_info)
''',
                r'''
        logits = apply_penalties(logits, sampling_info)
''',
            ),
            edit(
                "python/lumen/sampling/sampler.py",
                r'''
            probs, sampling_info.top_ks, sampling_info.top_ps, sampling_info.min_ps
        )

    def _apply_penalties(self, logits: torch.Tensor, info: SamplingBatchInfo) -> torch.Tensor:
        if info.output_token_counts is None:
            return logits
        counts = info.output_token_counts
        appeared = counts > 0
        logits -= info.frequency_penalties.unsqueeze(1) * counts
        logits -= info.presence_penalties.unsqueeze(1) * appeared
        rep = info.repetition_penalties.unsqueeze(1).expand_as(logits)
        penalized = torch.where(logits > 0, logits / rep, logits * rep)
        return torch.where(appeared, penalized, logits)
''',
                r'''
            probs, sampling_info.top_ks, sampling_info.top_ps, sampling_info.min_ps
        )
''',
            ),
            write(
                "python/lumen/sampling/penalties.py",
                r'''
"""Frequency, presence and repetition penalties."""

import torch


def apply_penalties(logits: torch.Tensor, info) -> torch.Tensor:
    """Apply the OpenAI-style frequency / presence penalties and the
    multiplicative repetition penalty to `logits` (in place where possible).

    `info` is a SamplingBatchInfo; nothing happens when no request of the
    batch uses a penalty (output_token_counts is None).
    """
    if info.output_token_counts is None:
        return logits
    counts = info.output_token_counts
    appeared = counts > 0
    logits -= info.frequency_penalties.unsqueeze(1) * counts
    logits -= info.presence_penalties.unsqueeze(1) * appeared
    rep = info.repetition_penalties.unsqueeze(1).expand_as(logits)
    penalized = torch.where(logits > 0, logits / rep, logits * rep)
    return torch.where(appeared, penalized, logits)
''',
            ),
            write(
                "python/lumen/sampling/__init__.py",
                r'''
from lumen.sampling.penalties import apply_penalties
from lumen.sampling.sampler import Sampler, SamplingBatchInfo

__all__ = ["Sampler", "SamplingBatchInfo", "apply_penalties"]
''',
            ),
            edit(
                "python/lumen/model_executor/model_runner.py",
                r'''
from lumen.layers.sampler import Sampler, SamplingBatchInfo
from lumen.mem_cache.memory_pool import ReqToTokenPool, TokenToKVPool
from lumen.model_executor.cuda_graph_runner import CudaGraphRunner
from lumen.model_executor.model_loader import get_model
from lumen.server.server_args import ServerArgs
''',
                r'''
from lumen.mem_cache.memory_pool import ReqToTokenPool, TokenToKVPool
from lumen.model_executor.cuda_graph_runner import CudaGraphRunner
from lumen.model_executor.model_loader import get_model
from lumen.sampling.sampler import Sampler, SamplingBatchInfo
from lumen.server.server_args import ServerArgs
''',
            ),
            edit(
                "test/test_sampler.py",
                r'''
from lumen.layers.sampler import Sampler, SamplingBatchInfo, top_k_top_p_min_p_sampling_from_probs_torch
''',
                r'''
from lumen.sampling.sampler import Sampler, SamplingBatchInfo, top_k_top_p_min_p_sampling_from_probs_torch
''',
            ),
        ],
        "intent": {
            "category": "refactor",
            "expected_verdict": "selective",
            "focus": [
                {"path": "python/lumen/sampling/sampler.py", "symbol": "Sampler"},
                {"path": "python/lumen/sampling/penalties.py", "symbol": "apply_penalties"},
            ],
            "skim": [
                "python/lumen/model_executor/model_runner.py",
                "python/lumen/sampling/__init__.py",
                "test/test_sampler.py",
            ],
            "tags": ["sampling", "refactor", "rename"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1216,
        "author": "tomasz",
        "merged": "2026-09-03 11:25",
        "title": "[Docs] Add a scheduler overview diagram",
        "body": "",
        "ops": [
            generate("docs/images/scheduler-overview.png", "png_diagram"),
            edit(
                "docs/architecture.md",
                r'''
## Life of a request

1. The tokenizer manager
''',
                r'''
## Life of a request

![Tokenizer manager, scheduler and model runner](images/scheduler-overview.png)

1. The tokenizer manager
''',
            ),
        ],
        "intent": {
            "category": "docs",
            "expected_verdict": "skim",
            "skim": ["docs/architecture.md", "docs/images/scheduler-overview.png"],
            "tags": ["docs", "binary"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1218,
        "author": "lukas",
        "merged": "2026-09-03 13:00",
        "title": "Remove deprecated legacy int4 quantization",
        "body": """
Deprecated since 0.3 and unused since the AWQ loader landed; nothing imports it any more.
Old checkpoints can be converted with lumen 0.4.x.
""",
        "ops": [
            delete("python/lumen/layers/quantization/legacy_int4.py"),
            delete("test/test_legacy_int4.py"),
        ],
        "intent": {
            "category": "cleanup",
            "cleanup": "delete-only",
            "expected_verdict": "skip",
            "skim": ["python/lumen/layers/quantization/legacy_int4.py", "test/test_legacy_int4.py"],
            "tags": ["quantization", "cleanup"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1219,
        "author": "arjun",
        "merged": "2026-09-03 15:40",
        "title": "style: apply ruff format to the server modules",
        "body": "",
        "ops": [
            edit(
                "python/lumen/server/tokenizer_manager.py",
                "        self.tokenizer = tokenizer  \n",
                "        self.tokenizer = tokenizer\n",
            ),
            edit(
                "python/lumen/server/tokenizer_manager.py",
                '        self.emitted_text = ""\n\n\n    def step(',
                '        self.emitted_text = ""\n\n    def step(',
            ),
            edit(
                "python/lumen/server/tokenizer_manager.py",
                "        self.rid_to_state: Dict[str, ReqState] = {}  \n",
                "        self.rid_to_state: Dict[str, ReqState] = {}\n",
            ),
            edit(
                "python/lumen/server/tokenizer_manager.py",
                "        self.default_max_new_tokens = 128\n    async def",
                "        self.default_max_new_tokens = 128\n\n    async def",
            ),
            edit(
                "python/lumen/server/tokenizer_manager.py",
                "            delta = self.detokenizers[rid].step(token_ids)  \n",
                "            delta = self.detokenizers[rid].step(token_ids)\n",
            ),
            edit(
                "python/lumen/server/tokenizer_manager.py",
                "            state.event.set()\n    def abort_request",
                "            state.event.set()\n\n    def abort_request",
            ),
            edit(
                "python/lumen/server/api_server.py",
                '    return JSONResponse(content=error.model_dump(), status_code=status.value)\n@app.get("/health")',
                '    return JSONResponse(content=error.model_dump(), status_code=status.value)\n\n\n@app.get("/health")',
            ),
            edit(
                "python/lumen/server/api_server.py",
                "    return Response(status_code=200)  \n",
                "    return Response(status_code=200)\n",
            ),
            edit(
                "python/lumen/server/api_server.py",
                '        return create_error_response(str(e))\n\n\n\n@app.post',
                '        return create_error_response(str(e))\n\n\n@app.post',
            ),
            edit(
                "python/lumen/server/api_server.py",
                "    if request.stream:   \n        async def",
                "    if request.stream:\n\n        async def",
            ),
            edit(
                "python/lumen/server/api_server.py",
                "    )\ndef launch_server",
                "    )\n\n\ndef launch_server",
            ),
        ],
        "intent": {
            "category": "cleanup",
            "cleanup": "whitespace-only",
            "expected_verdict": "skip",
            "skim": ["python/lumen/server/api_server.py", "python/lumen/server/tokenizer_manager.py"],
            "tags": ["cleanup", "server", "formatting"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1221,
        "author": "wang",
        "merged": "2026-09-03 18:05",
        "title": "[Docs] Clarify the comments of the KV cache pools",
        "body": "",
        "ops": [
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
            # index_put is not implemented for fp8 tensors; store a uint8 view
''',
                r'''
            # torch has no index_put for fp8 dtypes, so the buffers are stored as
            # uint8 and viewed back as fp8 in get_kv_buffer() / set_kv_buffer().
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        # slot 0 is for padded tokens
''',
                r'''
        # Slot 0 is never handed out: padded tokens of CUDA graph batches write
        # their (garbage) KV there, so it must not alias a real token.
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        # take from the front
''',
                r'''
        # Allocate from the front of the free list; free() appends to the back,
        # so recently freed slots are reused last.
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        # put back at the end
''',
                r'''
        # Return the slots to the back of the free list (see alloc()).
''',
            ),
        ],
        "intent": {
            "category": "docs",
            "cleanup": "comment-only",
            "expected_verdict": "skim",
            "skim": ["python/lumen/mem_cache/memory_pool.py"],
            "tags": ["memory", "comments"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1222,
        "author": "priya",
        "merged": "2026-09-04 08:45",
        "title": "cleanup: remove unused imports and sort import blocks",
        "body": "",
        "ops": [
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
from typing import Any, Dict, List, Optional, Tuple
''',
                r'''
from typing import Any, Dict, Optional, Tuple
''',
            ),
            edit(
                "python/lumen/layers/rotary_embedding.py",
                r'''
import math
from typing import Any, Dict, Optional, Tuple
''',
                r'''
from typing import Any, Dict, Optional, Tuple
''',
            ),
            edit(
                "benchmark/kernels/tune_fused_moe.py",
                r'''
from lumen.layers.moe.fused_moe import fused_experts, get_config_file_name
from lumen.layers.moe import fused_moe
''',
                r'''
from lumen.layers.moe import fused_moe
from lumen.layers.moe.fused_moe import fused_experts, get_config_file_name
''',
            ),
        ],
        "intent": {
            "category": "cleanup",
            "cleanup": "import-only",
            "expected_verdict": "skip",
            "skim": [
                "benchmark/kernels/tune_fused_moe.py",
                "python/lumen/layers/moe/fused_moe.py",
                "python/lumen/layers/rotary_embedding.py",
            ],
            "tags": ["cleanup", "imports"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1224,
        "author": "mei",
        "merged": "2026-09-04 10:30",
        "title": "refactor: rename the tensor-parallel accessors to get_tp_world_size / get_tp_rank",
        "body": """
Pure rename, no behaviour change: `get_tensor_model_parallel_world_size` ->
`get_tp_world_size` and `get_tensor_model_parallel_rank` -> `get_tp_rank`, everywhere
including the test fixtures. Done with sed; ruff format had nothing to add.
""",
        "ops": [
            sub_all(
                r"\bget_tensor_model_parallel_world_size\b",
                "get_tp_world_size",
                [
                    "python/lumen/distributed/parallel_state.py",
                    "python/lumen/model_executor/model_runner.py",
                    "python/lumen/layers/linear.py",
                    "python/lumen/layers/vocab_parallel_embedding.py",
                    "python/lumen/layers/moe/fused_moe.py",
                    "python/lumen/models/llama.py",
                    "python/lumen/models/qwen.py",
                    "test/conftest.py",
                    "test/test_linear.py",
                ],
            ),
            sub_all(
                r"\bget_tensor_model_parallel_rank\b",
                "get_tp_rank",
                [
                    "python/lumen/distributed/parallel_state.py",
                    "python/lumen/layers/linear.py",
                    "python/lumen/layers/vocab_parallel_embedding.py",
                    "python/lumen/layers/moe/fused_moe.py",
                    "test/conftest.py",
                    "test/test_linear.py",
                ],
            ),
        ],
        "intent": {
            "category": "refactor",
            "cleanup": "mechanical",
            "expected_verdict": "skim",
            "focus": [{"path": "python/lumen/distributed/parallel_state.py", "symbol": "get_tp_world_size"}],
            "skim": [
                "python/lumen/layers/linear.py",
                "python/lumen/layers/moe/fused_moe.py",
                "python/lumen/layers/vocab_parallel_embedding.py",
                "python/lumen/model_executor/model_runner.py",
                "python/lumen/models/llama.py",
                "python/lumen/models/qwen.py",
                "test/conftest.py",
                "test/test_linear.py",
            ],
            "tags": ["refactor", "distributed", "rename"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1225,
        "author": "hana",
        "merged": "2026-09-04 13:15",
        "title": "[Kernel] Dequantize FP8 weights with a lookup table on pre-Hopper GPUs",
        "body": """
On A100 (no FP8 tensor cores) `Fp8LinearMethod.apply` dequantized the weight with
`to(x.dtype) * scale` on every call. For power-of-two scales a gather from a 256-entry
table per scale exponent is exact and avoids the multiply.

The table is generated by `scripts/gen_fp8_lut.py` and checked in
(`generated/fp8_lut.py`, ~33k lines, marked linguist-generated); please don't review it
by hand. Only `fp8.py` has logic changes.

A100-SXM4-80GB, Llama-3.1-8B FP8 weights, bs=1 decode: 31.2 ms -> 24.9 ms per step (-20%).
""",
        "ops": [
            write(
                "scripts/gen_fp8_lut.py",
                r'''
#!/usr/bin/env python3
"""Generate python/lumen/layers/quantization/generated/fp8_lut.py.

For every power-of-two scale 2**-k (k = 0..127) and every FP8 E4M3 ("fn"
flavour) bit pattern the table holds the dequantized value, so that GPUs
without FP8 support can dequantize a weight with a single gather.

    python scripts/gen_fp8_lut.py
"""

import math
import os

NUM_SCALE_EXPONENTS = 128
OUTPUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "python",
    "lumen",
    "layers",
    "quantization",
    "generated",
    "fp8_lut.py",
)


def decode_e4m3fn(code: int) -> float:
    """Value of an E4M3 byte (fn: no infinities, 0x7f / 0xff are NaN)."""
    sign = -1.0 if code & 0x80 else 1.0
    exponent = (code >> 3) & 0xF
    mantissa = code & 0x7
    if exponent == 0xF and mantissa == 0x7:
        return math.nan
    if exponent == 0:
        return sign * math.ldexp(mantissa / 8.0, -6)
    return sign * math.ldexp(1.0 + mantissa / 8.0, exponent - 7)


def render() -> str:
    lines = [
        "# fmt: off",
        "# This file is generated by scripts/gen_fp8_lut.py. DO NOT EDIT.",
        "#",
        "# FP8_E4M3_DEQUANT_LUT[k * 256 + code] == decode_e4m3fn(code) * 2**-k",
        '"""Dequantization table for FP8 E4M3 weights with power-of-two scales."""',
        "",
        f"NUM_SCALE_EXPONENTS = {NUM_SCALE_EXPONENTS}",
        "",
        "FP8_E4M3_DEQUANT_LUT = [",
    ]
    for k in range(NUM_SCALE_EXPONENTS):
        lines.append(f"    # scale = 2**-{k}")
        for code in range(256):
            value = decode_e4m3fn(code)
            text = 'float("nan")' if math.isnan(value) else repr(math.ldexp(value, -k))
            lines.append(f"    {text},  # 0x{code:02x}")
    lines.append("]")
    return "\n".join(lines) + "\n"


def main() -> None:
    path = os.path.normpath(OUTPUT)
    with open(path, "w") as f:
        f.write(render())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
''',
            ),
            write(
                "python/lumen/layers/quantization/generated/__init__.py",
                r'''
"""Generated tables; see scripts/gen_fp8_lut.py. Do not edit by hand."""
''',
            ),
            generate("python/lumen/layers/quantization/generated/fp8_lut.py", "script", "scripts/gen_fp8_lut.py"),
            write(
                ".gitattributes",
                r'''
python/lumen/layers/quantization/generated/** linguist-generated=true
''',
            ),
            edit(
                "pyproject.toml",
                r'''
target-version = "py310"
''',
                r'''
target-version = "py310"
extend-exclude = ["python/lumen/layers/quantization/generated"]
''',
            ),
            edit(
                "python/lumen/layers/quantization/fp8.py",
                r'''
from typing import Any, Dict, List, Optional
''',
                r'''
from typing import Any, Dict, List, Optional, Tuple
''',
            ),
            edit(
                "python/lumen/layers/quantization/fp8.py",
                r'''
    return any(prefix == name or prefix.startswith(name + ".") for name in ignored_layers)
''',
                r'''
    return any(prefix == name or prefix.startswith(name + ".") for name in ignored_layers)


_LUT_CACHE: Dict[Tuple[torch.device, torch.dtype], torch.Tensor] = {}


def dequantize_fp8_lut(weight: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Dequantize an FP8 E4M3 weight with a table lookup.

    Only exact for power-of-two scales between 2**-127 and 1; any other scale
    takes the arithmetic path.
    """
    exponent = torch.log2(scale.float())
    if scale.numel() != 1 or exponent.item() != round(exponent.item()) or not -127 <= exponent.item() <= 0:
        return weight.to(dtype) * scale.to(dtype)
    key = (weight.device, dtype)
    lut = _LUT_CACHE.get(key)
    if lut is None:
        from lumen.layers.quantization.generated.fp8_lut import FP8_E4M3_DEQUANT_LUT

        lut = torch.tensor(FP8_E4M3_DEQUANT_LUT, dtype=torch.float32).view(-1, 256).to(weight.device, dtype)
        _LUT_CACHE[key] = lut
    row = int(-exponent.item())
    return lut[row][weight.view(torch.uint8).long()]
''',
            ),
            edit(
                "python/lumen/layers/quantization/fp8.py",
                r'''
            w = layer.weight.to(x.dtype) * layer.weight_scale.to(x.dtype)
''',
                r'''
            w = dequantize_fp8_lut(layer.weight, layer.weight_scale, x.dtype)
''',
            ),
        ],
        "intent": {
            "category": "perf",
            "expected_verdict": "selective",
            "focus": [{"path": "python/lumen/layers/quantization/fp8.py", "symbol": "dequantize_fp8_lut"}],
            "skim": [
                ".gitattributes",
                "pyproject.toml",
                "python/lumen/layers/quantization/generated/__init__.py",
                "python/lumen/layers/quantization/generated/fp8_lut.py",
                "scripts/gen_fp8_lut.py",
            ],
            "tags": ["quantization", "kernel", "perf", "generated"],
            "numbers": ["-20%", "31.2 ms", "24.9 ms"],
            "huge_file": "python/lumen/layers/quantization/generated/fp8_lut.py",
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1227,
        "author": "diego",
        "merged": "2026-09-04 16:00",
        "title": "[AMD] Use float8_e4m3fnuz for FP8 weights and KV cache on ROCm",
        "body": """
MI300 implements the "fnuz" flavour of E4M3 (no negative zero, exponent bias 8), so an
e4m3fn checkpoint has to be reinterpreted and its scales doubled before `torch._scaled_mm`
can use it. Until now pre-quantized FP8 checkpoints silently produced garbage on ROCm.

- `get_fp8_dtype(device)` in utils/common.py picks the flavour for the device
- e4m3fn weights and scales are normalized to e4m3fnuz after loading
- the fp8_e4m3 KV cache uses fnuz on ROCm as well
""",
        "ops": [
            edit(
                "python/lumen/utils/common.py",
                r'''
    major, minor = torch.cuda.get_device_capability(device_id)
    return major, minor
''',
                r'''
    major, minor = torch.cuda.get_device_capability(device_id)
    return major, minor


def get_fp8_dtype(device: str = "cuda") -> torch.dtype:
    """The E4M3 flavour the device computes in (ROCm uses the fnuz variant)."""
    if device == "cuda" and is_hip():
        return torch.float8_e4m3fnuz
    return torch.float8_e4m3fn
''',
            ),
            edit(
                "python/lumen/_custom_ops.py",
                r'''
import torch

logger = logging.getLogger(__name__)
''',
                r'''
import torch

from lumen.utils.common import get_fp8_dtype

logger = logging.getLogger(__name__)
''',
            ),
            edit(
                "python/lumen/_custom_ops.py",
                r'''
    output = torch.empty(shape, device=input.device, dtype=torch.float8_e4m3fn)
''',
                r'''
    output = torch.empty(shape, device=input.device, dtype=get_fp8_dtype(input.device.type))
''',
            ),
            edit(
                "python/lumen/layers/quantization/fp8.py",
                r'''
from lumen.utils.common import get_device_capability
''',
                r'''
from lumen.utils.common import get_device_capability, is_hip
''',
            ),
            edit(
                "python/lumen/layers/quantization/fp8.py",
                r'''
class Fp8Config(QuantizationConfig):
''',
                r'''
def normalize_e4m3fn_to_e4m3fnuz(
    weight: torch.Tensor, weight_scale: torch.Tensor, input_scale: Optional[torch.Tensor] = None
) -> Tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
    """Reinterpret e4m3fn weights as e4m3fnuz and rescale accordingly."""
    assert weight.dtype == torch.float8_e4m3fn
    # 0x80 is -0.0 in e4m3fn but NaN in e4m3fnuz: map it to +0.
    weight_as_int8 = weight.view(torch.int8)
    weight_as_int8[weight_as_int8 == -128] = 0
    weight = weight_as_int8.view(torch.float8_e4m3fnuz)
    # The same bits are worth half as much in fnuz (exponent bias 8 instead of 7).
    weight_scale = weight_scale * 2.0
    if input_scale is not None:
        input_scale = input_scale * 2.0
    return weight, weight_scale, input_scale


class Fp8Config(QuantizationConfig):
''',
            ),
            edit(
                "python/lumen/layers/quantization/fp8.py",
                r'''
        layer.weight = Parameter(layer.weight.t(), requires_grad=False)
        layer.weight_scale = Parameter(max_w_scale, requires_grad=False)
        if layer.input_scale is not None:
            layer.input_scale = Parameter(layer.input_scale.max(), requires_grad=False)
''',
                r'''
        weight, input_scale = layer.weight.data, layer.input_scale
        if input_scale is not None:
            input_scale = input_scale.max()
        if is_hip() and weight.dtype == torch.float8_e4m3fn:
            weight, max_w_scale, input_scale = normalize_e4m3fn_to_e4m3fnuz(weight, max_w_scale, input_scale)
        layer.weight = Parameter(weight.t(), requires_grad=False)
        layer.weight_scale = Parameter(max_w_scale, requires_grad=False)
        if input_scale is not None:
            layer.input_scale = Parameter(input_scale, requires_grad=False)
''',
            ),
            edit(
                "python/lumen/model_executor/model_runner.py",
                r'''
from lumen.utils.common import get_available_gpu_memory, set_random_seed
''',
                r'''
from lumen.utils.common import get_available_gpu_memory, get_fp8_dtype, set_random_seed
''',
            ),
            edit(
                "python/lumen/model_executor/model_runner.py",
                r'''
        elif kv_cache_dtype == "fp8_e4m3":
            self.kv_cache_dtype = torch.float8_e4m3fn
''',
                r'''
        elif kv_cache_dtype == "fp8_e4m3":
            self.kv_cache_dtype = get_fp8_dtype(self.device)
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        if dtype in (torch.float8_e5m2, torch.float8_e4m3fn):
''',
                r'''
        if dtype in (torch.float8_e5m2, torch.float8_e4m3fn, torch.float8_e4m3fnuz):
''',
            ),
            edit(
                "test/test_fp8.py",
                r'''
from lumen.layers.quantization.fp8 import Fp8Config, is_layer_skipped
''',
                r'''
from lumen.layers.quantization.fp8 import Fp8Config, is_layer_skipped, normalize_e4m3fn_to_e4m3fnuz
''',
            ),
            edit(
                "test/test_fp8.py",
                r'''
    assert not is_layer_skipped("model.layers.10.mlp", ["model.layers.1"])
''',
                r'''
    assert not is_layer_skipped("model.layers.10.mlp", ["model.layers.1"])


def test_normalize_e4m3fn_to_e4m3fnuz_doubles_scales():
    w = torch.tensor([0.5, -0.0, 2.0]).to(torch.float8_e4m3fn)
    w_nuz, scale, input_scale = normalize_e4m3fn_to_e4m3fnuz(w, torch.tensor(0.25), torch.tensor(1.0))
    assert w_nuz.dtype == torch.float8_e4m3fnuz
    assert scale.item() == 0.5 and input_scale.item() == 2.0
    torch.testing.assert_close(w_nuz.float() * scale, w.float() * 0.25)
''',
            ),
        ],
        "intent": {
            "category": "bugfix",
            "expected_verdict": "close",
            "focus": [
                {"path": "python/lumen/layers/quantization/fp8.py", "symbol": "normalize_e4m3fn_to_e4m3fnuz"},
                {"path": "python/lumen/layers/quantization/fp8.py", "symbol": "process_weights_after_loading"},
                {"path": "python/lumen/utils/common.py", "symbol": "get_fp8_dtype"},
            ],
            "skim": ["python/lumen/mem_cache/memory_pool.py"],
            "tags": ["amd", "quantization", "dtype", "device"],
            "has_test": True,
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1228,
        "author": "tomasz",
        "merged": "2026-09-04 19:20",
        "title": "[Bugfix] Fix a race on the KV cache free lists",
        "body": """
`abort_request` frees a request's slots from the HTTP thread while the scheduler loop
allocates from the same free list. `self.free_slots = self.free_slots[n:]` is a
read-modify-write, so an unlucky interleaving handed the same slot to two requests; this
is the garbled-output report in #1198.

Guard both pools with a lock. It is uncontended in the common case and alloc/free stay
around 1 us.
""",
        "ops": [
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
import logging
from typing import List, Optional, Union
''',
                r'''
import logging
import threading
from typing import List, Optional, Union
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        self.free_slots = list(range(size))

    def available_size(self) -> int:
        return len(self.free_slots)

    def alloc(self, need_size: int = 1) -> Optional[List[int]]:
        if need_size > len(self.free_slots):
            return None
        select = self.free_slots[:need_size]
        self.free_slots = self.free_slots[need_size:]
        return select

    def free(self, free_index: Union[int, List[int]]) -> None:
        if isinstance(free_index, int):
            self.free_slots.append(free_index)
        else:
            self.free_slots.extend(free_index)

    def clear(self) -> None:
        self.free_slots = list(range(self.size))
''',
                r'''
        self.free_slots = list(range(size))
        # alloc() runs on the scheduler thread, free() also on the abort path.
        self._lock = threading.Lock()

    def available_size(self) -> int:
        return len(self.free_slots)

    def alloc(self, need_size: int = 1) -> Optional[List[int]]:
        with self._lock:
            if need_size > len(self.free_slots):
                return None
            select = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            return select

    def free(self, free_index: Union[int, List[int]]) -> None:
        with self._lock:
            if isinstance(free_index, int):
                self.free_slots.append(free_index)
            else:
                self.free_slots.extend(free_index)

    def clear(self) -> None:
        with self._lock:
            self.free_slots = list(range(self.size))
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        self.free_slots: Optional[torch.Tensor] = None
        self.clear()
''',
                r'''
        self._lock = threading.Lock()
        self.free_slots: Optional[torch.Tensor] = None
        self.clear()
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        # so recently freed slots are reused last.
        if need_size > len(self.free_slots):
            return None
        select_index = self.free_slots[:need_size]
        self.free_slots = self.free_slots[need_size:]
        return select_index.to(self.device, non_blocking=True)
''',
                r'''
        # so recently freed slots are reused last.
        with self._lock:
            if need_size > len(self.free_slots):
                return None
            select_index = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
        return select_index.to(self.device, non_blocking=True)
''',
            ),
            edit(
                "python/lumen/mem_cache/memory_pool.py",
                r'''
        # Return the slots to the back of the free list (see alloc()).
        self.free_slots = torch.cat((self.free_slots, free_index.cpu()))

    def clear(self) -> None:
        self.free_slots = torch.arange(1, self.size + 1, dtype=torch.int32)
''',
                r'''
        # Return the slots to the back of the free list (see alloc()).
        with self._lock:
            self.free_slots = torch.cat((self.free_slots, free_index.cpu()))

    def clear(self) -> None:
        with self._lock:
            self.free_slots = torch.arange(1, self.size + 1, dtype=torch.int32)
''',
            ),
            write(
                "test/test_memory_pool.py",
                r'''
import threading

import torch

from lumen.mem_cache.memory_pool import ReqToTokenPool, TokenToKVPool


def test_req_to_token_pool_alloc_and_free():
    pool = ReqToTokenPool(4, 16, "cpu")
    slots = pool.alloc(3)
    assert slots == [0, 1, 2]
    assert pool.alloc(2) is None
    pool.free(slots)
    assert pool.available_size() == 4


def test_slot_zero_is_never_allocated():
    pool = TokenToKVPool(8, torch.float16, head_num=1, head_dim=4, layer_num=1, device="cpu")
    assert 0 not in pool.alloc(8).tolist()


def test_concurrent_alloc_and_free_keep_the_free_list_consistent():
    pool = TokenToKVPool(4096, torch.float16, head_num=1, head_dim=8, layer_num=1, device="cpu")

    def worker():
        for _ in range(200):
            idx = pool.alloc(4)
            if idx is not None:
                pool.free(idx)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert pool.available_size() == 4096
    assert sorted(pool.free_slots.tolist()) == list(range(1, 4097))
''',
            ),
        ],
        "intent": {
            "category": "bugfix",
            "expected_verdict": "close",
            "focus": [
                {"path": "python/lumen/mem_cache/memory_pool.py", "symbol": "TokenToKVPool"},
                {"path": "python/lumen/mem_cache/memory_pool.py", "symbol": "ReqToTokenPool"},
            ],
            "tags": ["memory", "concurrency", "bugfix", "lock"],
            "has_test": True,
            "references": [1198],
        },
    },
]
