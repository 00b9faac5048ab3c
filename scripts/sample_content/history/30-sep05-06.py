# 2026-09-05 .. 2026-09-06

CHANGES += [
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1230,
        "author": "wang",
        "merged": "2026-09-05 09:10",
        "title": "[Kernel] Handle non-contiguous tensors in shm_broadcast",
        "body": """
`shm_broadcast` memcpy'd `data_ptr()` of whatever tensor it got, so a sliced or
transposed CPU tensor was broadcast with the wrong layout. Go through a contiguous
staging tensor, copy back on the receivers, and check that sender and receivers agree on
the payload size instead of reading past the end.
""",
        "ops": [
            edit(
                "csrc/cpu/shm_broadcast.cc",
                r'''
    TORCH_CHECK(nbytes <= size_, "tensor of ", nbytes,
                " bytes does not fit the shm buffer of ", size_, " bytes");
    if (rank_ == src) {
      wait_for_acks();
      std::memcpy(payload_, data.data_ptr(), nbytes);
''',
                r'''
    TORCH_CHECK(nbytes <= size_, "tensor of ", nbytes,
                " bytes does not fit the shm buffer of ", size_, " bytes");
    // memcpy needs a dense buffer; slices and transposes go through a copy.
    torch::Tensor staging = data.is_contiguous() ? data : data.contiguous();
    if (rank_ == src) {
      wait_for_acks();
      std::memcpy(payload_, staging.data_ptr(), nbytes);
''',
            ),
            edit(
                "csrc/cpu/shm_broadcast.cc",
                r'''
        // spin; broadcasts are short and frequent
      }
      std::memcpy(data.data_ptr(), payload_, nbytes);
      header_->acks[rank_].store(1, std::memory_order_release);
''',
                r'''
        // spin; broadcasts are short and frequent
      }
      TORCH_CHECK(header_->payload_bytes == nbytes, "rank ", rank_, " expects ",
                  nbytes, " bytes but rank ", src, " sent ",
                  header_->payload_bytes);
      std::memcpy(staging.data_ptr(), payload_, nbytes);
      if (!data.is_contiguous()) {
        data.copy_(staging);
      }
      header_->acks[rank_].store(1, std::memory_order_release);
''',
            ),
        ],
        "intent": {
            "category": "bugfix",
            "expected_verdict": "close",
            "focus": [{"path": "csrc/cpu/shm_broadcast.cc", "symbol": "broadcast"}],
            "tags": ["cpu", "cpp", "bugfix", "kernel"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1231,
        "author": "mei",
        "merged": "2026-09-05 11:50",
        "title": "[Model] Add Qwen3-MoE support",
        "body": """
Adds `Qwen3MoeForCausalLM` (Qwen3-30B-A3B, Qwen3-235B-A22B).

Differences from Qwen2-MoE that needed new plumbing:
- per-head RMSNorm on q and k (`q_norm` / `k_norm`) before RoPE
- no shared expert, routing weights renormalized (`norm_topk_prob`)
- 128 experts: new tuned `E=128,N=768` config for H100

To avoid a third copy of the expert weight mapping this introduces
`FusedMoE.make_expert_params_mapping`, and a small `TopKConfig` dataclass that carries the
routing options from the model to `select_experts`. Qwen2-MoE now uses the shared helper.

gsm8k (5-shot), Qwen3-30B-A3B, bf16, TP=2: 0.912 (HF transformers: 0.914).

Co-authored-by: Hana Sato <88123456+hsato@users.noreply.github.com>
Co-authored-by: Wang Lei <wanglei@deepriver-ai.cn>
""",
        "ops": [
            write(
                "python/lumen/models/qwen3_moe.py",
                r'''
"""Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B)."""

from typing import Iterable, Optional, Tuple

import torch
from torch import nn

from lumen.distributed.parallel_state import get_tp_world_size, tensor_model_parallel_all_reduce
from lumen.layers.layernorm import RMSNorm
from lumen.layers.linear import ColumnParallelLinear, QKVParallelLinear, RowParallelLinear
from lumen.layers.logits_processor import LogitsProcessor
from lumen.layers.moe.fused_moe import FusedMoE
from lumen.layers.radix_attention import RadixAttention
from lumen.layers.rotary_embedding import get_rope
from lumen.layers.vocab_parallel_embedding import ParallelLMHead, VocabParallelEmbedding


class Qwen3MoeSparseMoeBlock(nn.Module):
    def __init__(self, config, quant_config=None, prefix: str = ""):
        super().__init__()
        self.tp_size = get_tp_world_size()
        if self.tp_size > config.num_experts:
            raise ValueError(
                f"Tensor parallel size {self.tp_size} is greater than the number of experts {config.num_experts}."
            )
        self.experts = FusedMoE(
            num_experts=config.num_experts,
            top_k=config.num_experts_per_tok,
            hidden_size=config.hidden_size,
            intermediate_size=config.moe_intermediate_size,
            reduce_results=False,
            renormalize=config.norm_topk_prob,
            prefix=f"{prefix}.experts",
        )
        # The router is tiny; every rank computes all logits.
        self.gate = ColumnParallelLinear(
            config.hidden_size, config.num_experts, bias=False, gather_output=True, prefix=f"{prefix}.gate"
        )

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        num_tokens, hidden_dim = hidden_states.shape
        router_logits = self.gate(hidden_states)
        final_hidden_states = self.experts(hidden_states, router_logits)
        if self.tp_size > 1:
            final_hidden_states = tensor_model_parallel_all_reduce(final_hidden_states)
        return final_hidden_states.view(num_tokens, hidden_dim)


class Qwen3MoeAttention(nn.Module):
    """Llama-style attention with an RMSNorm over each q and k head."""

    def __init__(self, config, layer_id: int, quant_config=None, prefix: str = ""):
        super().__init__()
        tp_size = get_tp_world_size()
        self.total_num_heads = config.num_attention_heads
        self.num_heads = self.total_num_heads // tp_size
        self.total_num_kv_heads = config.num_key_value_heads
        self.num_kv_heads = max(1, self.total_num_kv_heads // tp_size)
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.total_num_heads
        self.q_size = self.num_heads * self.head_dim
        self.kv_size = self.num_kv_heads * self.head_dim

        self.qkv_proj = QKVParallelLinear(
            config.hidden_size,
            self.head_dim,
            self.total_num_heads,
            self.total_num_kv_heads,
            bias=getattr(config, "attention_bias", False),
            quant_config=quant_config,
            prefix=f"{prefix}.qkv_proj",
        )
        self.o_proj = RowParallelLinear(
            self.total_num_heads * self.head_dim,
            config.hidden_size,
            bias=False,
            quant_config=quant_config,
            prefix=f"{prefix}.o_proj",
        )
        self.q_norm = RMSNorm(self.head_dim, eps=config.rms_norm_eps)
        self.k_norm = RMSNorm(self.head_dim, eps=config.rms_norm_eps)
        self.rotary_emb = get_rope(
            self.head_dim,
            self.head_dim,
            getattr(config, "max_position_embeddings", 40960),
            getattr(config, "rope_theta", 1000000.0),
            rope_scaling=getattr(config, "rope_scaling", None),
        )
        self.attn = RadixAttention(self.num_heads, self.head_dim, self.head_dim**-0.5, self.num_kv_heads, layer_id)

    def _apply_qk_norm(self, q: torch.Tensor, k: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        q = self.q_norm(q.reshape(-1, self.head_dim)).view(q.shape)
        k = self.k_norm(k.reshape(-1, self.head_dim)).view(k.shape)
        return q, k

    def forward(self, positions: torch.Tensor, hidden_states: torch.Tensor, batch) -> torch.Tensor:
        qkv = self.qkv_proj(hidden_states)
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q, k = self._apply_qk_norm(q, k)
        q, k = self.rotary_emb(positions, q, k)
        attn_output = self.attn(q, k, v, batch)
        return self.o_proj(attn_output)


class Qwen3MoeDecoderLayer(nn.Module):
    def __init__(self, config, layer_id: int, quant_config=None, prefix: str = ""):
        super().__init__()
        self.self_attn = Qwen3MoeAttention(config, layer_id, quant_config, prefix=f"{prefix}.self_attn")
        self.mlp = Qwen3MoeSparseMoeBlock(config, quant_config, prefix=f"{prefix}.mlp")
        self.input_layernorm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, positions, hidden_states, batch, residual: Optional[torch.Tensor]):
        if residual is None:
            residual = hidden_states
            hidden_states = self.input_layernorm(hidden_states)
        else:
            hidden_states, residual = self.input_layernorm(hidden_states, residual)
        hidden_states = self.self_attn(positions, hidden_states, batch)
        hidden_states, residual = self.post_attention_layernorm(hidden_states, residual)
        hidden_states = self.mlp(hidden_states)
        return hidden_states, residual


class Qwen3MoeForCausalLM(nn.Module):
    # (param_name, shard_name, shard_id)
    stacked_params_mapping = [
        ("qkv_proj", "q_proj", "q"),
        ("qkv_proj", "k_proj", "k"),
        ("qkv_proj", "v_proj", "v"),
    ]

    def __init__(self, config, quant_config=None):
        super().__init__()
        self.config = config
        self.embed_tokens = VocabParallelEmbedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(
            [Qwen3MoeDecoderLayer(config, i, quant_config, prefix=f"model.layers.{i}") for i in range(config.num_hidden_layers)]
        )
        self.norm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.lm_head = ParallelLMHead(config.vocab_size, config.hidden_size)
        self.logits_processor = LogitsProcessor(config.vocab_size)

    @torch.no_grad()
    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor, batch):
        hidden_states = self.embed_tokens(input_ids)
        residual = None
        for layer in self.layers:
            hidden_states, residual = layer(positions, hidden_states, batch, residual)
        hidden_states, _ = self.norm(hidden_states, residual)
        return self.logits_processor(input_ids, hidden_states, self.lm_head, batch)

    def load_weights(self, weights: Iterable[Tuple[str, torch.Tensor]]) -> None:
        expert_params_mapping = FusedMoE.make_expert_params_mapping(
            ckpt_gate_proj_name="gate_proj",
            ckpt_down_proj_name="down_proj",
            ckpt_up_proj_name="up_proj",
            num_experts=self.config.num_experts,
        )
        params_dict = dict(self.named_parameters())
        for name, loaded_weight in weights:
            name = name.removeprefix("model.")
            if self.config.tie_word_embeddings and name == "lm_head.weight":
                continue
            for param_name, weight_name, shard_id in self.stacked_params_mapping:
                if weight_name not in name:
                    continue
                name = name.replace(weight_name, param_name)
                param = params_dict[name]
                param.weight_loader(param, loaded_weight, shard_id)
                break
            else:
                for param_name, weight_name, expert_id, shard_id in expert_params_mapping:
                    if weight_name not in name:
                        continue
                    name = name.replace(weight_name, param_name)
                    layer_id = int(name.split(".")[1])
                    moe = self.layers[layer_id].mlp.experts
                    moe.weight_loader(params_dict[name], loaded_weight, weight_name, shard_id, expert_id)
                    break
                else:
                    param = params_dict[name]
                    weight_loader = getattr(param, "weight_loader", None)
                    if weight_loader is None:
                        param.data.copy_(loaded_weight)
                    else:
                        weight_loader(param, loaded_weight)
        if self.config.tie_word_embeddings:
            self.lm_head.weight = self.embed_tokens.weight
''',
            ),
            edit(
                "python/lumen/models/__init__.py",
                r'''
    "Qwen2MoeForCausalLM": ("qwen", "Qwen2MoeForCausalLM"),
''',
                r'''
    "Qwen2MoeForCausalLM": ("qwen", "Qwen2MoeForCausalLM"),
    "Qwen3MoeForCausalLM": ("qwen3_moe", "Qwen3MoeForCausalLM"),
''',
            ),
            edit(
                "python/lumen/layers/moe/topk.py",
                r'''
from typing import Callable, Optional, Tuple

import torch
''',
                r'''
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import torch
''',
            ),
            edit(
                "python/lumen/layers/moe/topk.py",
                r'''
    from lumen import _custom_ops as ops


def fused_topk(
''',
                r'''
    from lumen import _custom_ops as ops


@dataclass(frozen=True)
class TopKConfig:
    """How a MoE layer routes tokens to experts."""

    top_k: int
    renormalize: bool = True
    use_grouped_topk: bool = False
    topk_group: Optional[int] = None
    num_expert_group: Optional[int] = None
    custom_routing_function: Optional[Callable] = None


def fused_topk(
''',
            ),
            edit(
                "python/lumen/layers/moe/topk.py",
                r'''
def select_experts(
    hidden_states: torch.Tensor,
    router_logits: torch.Tensor,
    top_k: int,
    use_grouped_topk: bool,
    renormalize: bool,
    topk_group: Optional[int] = None,
    num_expert_group: Optional[int] = None,
    custom_routing_function: Optional[Callable] = None,
) -> Tuple[torch.Tensor, torch.Tensor]:
    if use_grouped_topk:
        assert topk_group is not None and num_expert_group is not None
        return grouped_topk(hidden_states, router_logits, top_k, renormalize, num_expert_group, topk_group)
    if custom_routing_function is not None:
        return custom_routing_function(hidden_states, router_logits, top_k, renormalize)
    return fused_topk(hidden_states, router_logits, top_k, renormalize)
''',
                r'''
def select_experts(
    hidden_states: torch.Tensor, router_logits: torch.Tensor, config: TopKConfig
) -> Tuple[torch.Tensor, torch.Tensor]:
    if config.use_grouped_topk:
        if config.topk_group is None or config.num_expert_group is None:
            raise ValueError("grouped top-k needs topk_group and num_expert_group")
        return grouped_topk(
            hidden_states, router_logits, config.top_k, config.renormalize, config.num_expert_group, config.topk_group
        )
    if config.custom_routing_function is not None:
        return config.custom_routing_function(hidden_states, router_logits, config.top_k, config.renormalize)
    return fused_topk(hidden_states, router_logits, config.top_k, config.renormalize)
''',
            ),
            edit(
                "python/lumen/layers/moe/__init__.py",
                r'''
from lumen.layers.moe.topk import select_experts

__all__ = ["FusedMoE", "fused_experts", "select_experts"]
''',
                r'''
from lumen.layers.moe.topk import TopKConfig, select_experts

__all__ = ["FusedMoE", "TopKConfig", "fused_experts", "select_experts"]
''',
            ),
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
from typing import Any, Dict, Optional, Tuple
''',
                r'''
from typing import Any, Callable, Dict, List, Optional, Tuple
''',
            ),
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
from lumen.layers.moe.topk import select_experts
''',
                r'''
from lumen.layers.moe.topk import TopKConfig, select_experts
''',
            ),
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
        topk_group: Optional[int] = None,
        prefix: str = "",
    ):
''',
                r'''
        topk_group: Optional[int] = None,
        custom_routing_function: Optional[Callable] = None,
        prefix: str = "",
    ):
''',
            ),
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
        self.reduce_results = reduce_results
        self.renormalize = renormalize
        self.use_grouped_topk = use_grouped_topk
        self.num_expert_group = num_expert_group
        self.topk_group = topk_group
''',
                r'''
        self.reduce_results = reduce_results
        self.topk_config = TopKConfig(
            top_k=top_k,
            renormalize=renormalize,
            use_grouped_topk=use_grouped_topk,
            topk_group=topk_group,
            num_expert_group=num_expert_group,
            custom_routing_function=custom_routing_function,
        )
''',
            ),
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
    def weight_loader(self, param: Parameter, loaded_weight: torch.Tensor, weight_name: str, shard_id: str, expert_id: int) -> None:
''',
                r'''
    @staticmethod
    def make_expert_params_mapping(
        ckpt_gate_proj_name: str, ckpt_down_proj_name: str, ckpt_up_proj_name: str, num_experts: int
    ) -> List[Tuple[str, str, int, str]]:
        """(param_name, checkpoint weight name, expert_id, shard_id) for every expert weight."""
        mapping = []
        for expert_id in range(num_experts):
            for shard_id, weight_name in [
                ("w1", ckpt_gate_proj_name),
                ("w2", ckpt_down_proj_name),
                ("w3", ckpt_up_proj_name),
            ]:
                param_name = "experts.w13_weight" if shard_id in ("w1", "w3") else "experts.w2_weight"
                mapping.append((param_name, f"experts.{expert_id}.{weight_name}.weight", expert_id, shard_id))
        return mapping

    def weight_loader(self, param: Parameter, loaded_weight: torch.Tensor, weight_name: str, shard_id: str, expert_id: int) -> None:
''',
            ),
            edit(
                "python/lumen/layers/moe/fused_moe.py",
                r'''
        topk_weights, topk_ids = select_experts(
            hidden_states,
            router_logits,
            self.top_k,
            self.use_grouped_topk,
            self.renormalize,
            self.topk_group,
            self.num_expert_group,
        )
''',
                r'''
        topk_weights, topk_ids = select_experts(hidden_states, router_logits, self.topk_config)
''',
            ),
            edit(
                "python/lumen/models/qwen.py",
                r'''
        # (param_name, weight_name, expert_id, shard_id)
        expert_params_mapping = []
        for expert_id in range(self.config.num_experts):
            for shard_id, weight_name in [("w1", "gate_proj"), ("w2", "down_proj"), ("w3", "up_proj")]:
                param_name = "experts.w13_weight" if shard_id in ("w1", "w3") else "experts.w2_weight"
                expert_params_mapping.append((param_name, f"experts.{expert_id}.{weight_name}.weight", expert_id, shard_id))
''',
                r'''
        expert_params_mapping = FusedMoE.make_expert_params_mapping(
            ckpt_gate_proj_name="gate_proj",
            ckpt_down_proj_name="down_proj",
            ckpt_up_proj_name="up_proj",
            num_experts=self.config.num_experts_per_tok,
        )
''',
            ),
            edit(
                "python/lumen/configs/model_config.py",
                r'''
        self.head_dim = getattr(cfg, "head_dim", cfg.hidden_size // cfg.num_attention_heads)
''',
                r'''
        # Some configs (Qwen3) carry an explicit head_dim, others set it to null.
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
''',
            ),
            generate(MOE_CONFIG_DIR + "E=128,N=768,device_name=NVIDIA_H100.json", "moe_config", 31),
            edit(
                "benchmark/kernels/tune_fused_moe.py",
                r'''
    if arch == "Qwen2MoeForCausalLM":
''',
                r'''
    if arch in ("Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM"):
''',
            ),
            edit(
                "docs/supported_models.md",
                r'''
| `Qwen2MoeForCausalLM` | Qwen1.5-MoE-A2.7B, Qwen2-57B-A14B | fused MoE |
''',
                r'''
| `Qwen2MoeForCausalLM` | Qwen1.5-MoE-A2.7B, Qwen2-57B-A14B | fused MoE |
| `Qwen3MoeForCausalLM` | Qwen3-30B-A3B, Qwen3-235B-A22B | fused MoE, q/k norm |
''',
            ),
            write(
                "test/test_qwen3_moe.py",
                r'''
import torch

from lumen.models import ModelRegistry
from lumen.models.qwen3_moe import Qwen3MoeAttention, Qwen3MoeForCausalLM


def test_registry_resolves_qwen3_moe():
    assert ModelRegistry.resolve_model_cls(["Qwen3MoeForCausalLM"]) is Qwen3MoeForCausalLM


def test_qk_norm_is_applied_per_head():
    attn = Qwen3MoeAttention.__new__(Qwen3MoeAttention)
    torch.nn.Module.__init__(attn)
    attn.head_dim = 4
    attn.q_norm = torch.nn.LayerNorm(4, elementwise_affine=False)
    attn.k_norm = torch.nn.LayerNorm(4, elementwise_affine=False)
    q = torch.randn(3, 8)
    k = torch.randn(3, 4)
    q_out, k_out = attn._apply_qk_norm(q, k)
    assert q_out.shape == q.shape and k_out.shape == k.shape
    # Each 4-wide head is normalized on its own.
    torch.testing.assert_close(q_out.view(3, 2, 4).mean(-1), torch.zeros(3, 2), atol=1e-5, rtol=0)
''',
            ),
            append(
                "test/test_fused_moe_config.py",
                r'''
def test_make_expert_params_mapping_covers_every_expert():
    mapping = fused_moe.FusedMoE.make_expert_params_mapping("gate_proj", "down_proj", "up_proj", num_experts=4)
    assert len(mapping) == 12
    assert ("experts.w13_weight", "experts.3.up_proj.weight", 3, "w3") in mapping
    assert ("experts.w2_weight", "experts.0.down_proj.weight", 0, "w2") in mapping
''',
            ),
        ],
        "intent": {
            "category": "feature",
            "expected_verdict": "close",
            "focus": [
                {"path": "python/lumen/models/qwen3_moe.py", "symbol": "Qwen3MoeAttention"},
                {"path": "python/lumen/models/qwen3_moe.py", "symbol": "Qwen3MoeForCausalLM"},
                {"path": "python/lumen/layers/moe/fused_moe.py", "symbol": "make_expert_params_mapping"},
                {"path": "python/lumen/layers/moe/topk.py", "symbol": "TopKConfig"},
                {"path": "python/lumen/models/qwen.py", "symbol": "load_weights"},
            ],
            "skim": [
                "benchmark/kernels/tune_fused_moe.py",
                "docs/supported_models.md",
                "python/lumen/layers/moe/__init__.py",
                MOE_CONFIG_DIR + "E=128,N=768,device_name=NVIDIA_H100.json",
                "python/lumen/models/__init__.py",
            ],
            "tags": ["models", "moe", "feature"],
            "has_test": True,
            "numbers": ["0.912", "0.914"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1233,
        "author": "sofia",
        "merged": "2026-09-05 15:35",
        "title": "[Diffusion] Add a FlowMatch Euler scheduler for rectified-flow models",
        "body": """
SD3 / Flux style models are trained with rectified flow; sampling them with DDIM gives
noise. The pipeline now picks the sampler from the `_class_name` of the model's
`scheduler_config.json` and falls back to DDIM for anything it does not know.
""",
        "ops": [
            write(
                "python/lumen/diffusion/schedulers.py",
                r'''
"""Samplers for flow-matching (rectified flow) diffusion models."""

from typing import Optional

import torch


class FlowMatchEulerScheduler:
    """Euler integration of the probability-flow ODE of a rectified-flow model.

    The model predicts the velocity v = noise - x0. Sigmas go from 1 (pure
    noise) to 0 (data) and are shifted towards high noise levels, which large
    images need.
    """

    def __init__(self, num_train_timesteps: int = 1000, shift: float = 3.0):
        self.num_train_timesteps = num_train_timesteps
        self.shift = shift
        self.sigmas: Optional[torch.Tensor] = None
        self.timesteps: Optional[torch.Tensor] = None
        self._step_index = 0

    def _shift_sigma(self, sigma: torch.Tensor) -> torch.Tensor:
        return self.shift * sigma / (1 + (self.shift - 1) * sigma)

    def set_timesteps(self, num_inference_steps: int, device: str = "cuda") -> None:
        sigmas = torch.linspace(1.0, 1.0 / self.num_train_timesteps, num_inference_steps, dtype=torch.float32)
        sigmas = self._shift_sigma(sigmas)
        self.timesteps = (sigmas * self.num_train_timesteps).to(device)
        self.sigmas = torch.cat([sigmas, torch.zeros(1)]).to(device)
        self._step_index = 0

    def step(self, model_output: torch.Tensor, timestep: torch.Tensor, sample: torch.Tensor) -> torch.Tensor:
        if self.sigmas is None:
            raise RuntimeError("call set_timesteps() before step()")
        sigma = self.sigmas[self._step_index]
        sigma_next = self.sigmas[self._step_index + 1]
        self._step_index += 1
        prev_sample = sample.float() + (sigma_next - sigma) * model_output.float()
        return prev_sample.to(model_output.dtype)

    def scale_noise(self, sample: torch.Tensor, timestep: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        """Forward process used for img2img: x_t = (1 - sigma) * x0 + sigma * noise."""
        sigma = timestep / self.num_train_timesteps
        return (1.0 - sigma) * sample + sigma * noise
''',
            ),
            edit(
                "python/lumen/diffusion/pipeline.py",
                r'''
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)
''',
                r'''
from typing import Any, Dict, List, Optional

import torch

from lumen.diffusion.schedulers import FlowMatchEulerScheduler

logger = logging.getLogger(__name__)
''',
            ),
            edit(
                "python/lumen/diffusion/pipeline.py",
                r'''
    def step(self, model_output: torch.Tensor, timestep: int, sample: torch.Tensor) -> torch.Tensor:
        prev_t = timestep - self.num_train_timesteps // len(self.timesteps)
''',
                r'''
    def step(self, model_output: torch.Tensor, timestep, sample: torch.Tensor) -> torch.Tensor:
        timestep = int(timestep)
        prev_t = timestep - self.num_train_timesteps // len(self.timesteps)
''',
            ),
            edit(
                "python/lumen/diffusion/pipeline.py",
                r'''
        return alpha_prev.sqrt() * pred_x0 + (1 - alpha_prev).sqrt() * model_output


class DiffusionPipeline:
    def __init__(self, transformer, vae, text_encoder, device: str = "cuda", dtype: torch.dtype = torch.bfloat16):
''',
                r'''
        return alpha_prev.sqrt() * pred_x0 + (1 - alpha_prev).sqrt() * model_output


def create_scheduler(scheduler_config: Optional[Dict[str, Any]]):
    """Pick the sampler named in the model's scheduler_config.json."""
    if not scheduler_config:
        return DDIMScheduler()
    class_name = scheduler_config.get("_class_name", "DDIMScheduler")
    if class_name == "FlowMatchEulerDiscreteScheduler":
        return FlowMatchEulerScheduler(
            num_train_timesteps=scheduler_config.get("num_train_timesteps", 1000),
            shift=scheduler_config.get("shift", 3.0),
        )
    if class_name != "DDIMScheduler":
        logger.warning("Unsupported scheduler %s; falling back to DDIM.", class_name)
    return DDIMScheduler()


class DiffusionPipeline:
    def __init__(
        self,
        transformer,
        vae,
        text_encoder,
        device: str = "cuda",
        dtype: torch.dtype = torch.bfloat16,
        scheduler_config: Optional[Dict[str, Any]] = None,
    ):
''',
            ),
            edit(
                "python/lumen/diffusion/pipeline.py",
                r'''
        self.scheduler = DDIMScheduler()
''',
                r'''
        self.scheduler = create_scheduler(scheduler_config)
''',
            ),
            edit(
                "python/lumen/diffusion/pipeline.py",
                r'''
            latents = self.scheduler.step(noise, int(t), latents)
''',
                r'''
            latents = self.scheduler.step(noise, t, latents)
''',
            ),
        ],
        "intent": {
            "category": "feature",
            "expected_verdict": "selective",
            "focus": [
                {"path": "python/lumen/diffusion/schedulers.py", "symbol": "FlowMatchEulerScheduler"},
                {"path": "python/lumen/diffusion/pipeline.py", "symbol": "create_scheduler"},
            ],
            "tags": ["diffusion", "feature"],
            "has_test": False,
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "commit",
        "author": "lukas",
        "date": "2026-09-05 19:05 +0200",
        "subject": "Pin numpy below 2.3 until the nightly image is rebuilt",
        "body": """
numpy 2.3.0 wheels need a newer glibc than our nightly build image, and importing
lumen._C then fails with an undefined symbol. Drop the pin once the image is bumped.
""",
        "ops": [
            edit(
                "pyproject.toml",
                r'''
    "numpy",
''',
                r'''
    "numpy<2.3",
''',
            ),
        ],
        "intent": {
            "category": "deps",
            "expected_verdict": "skim",
            "skim": ["pyproject.toml"],
            "tags": ["deps", "hotfix"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1234,
        "author": "arjun",
        "merged": "2026-09-05 20:40",
        "title": "fix: clamp top_p and survive NaN logits in the sampler",
        "body": "",
        "ops": [
            edit(
                "python/lumen/sampling/sampler.py",
                r'''
        logits = apply_penalties(logits, sampling_info)
''',
                r'''
        logits = apply_penalties(logits, sampling_info)

        # FIXME: a NaN row (seen with fp16 overflow on very long contexts) makes
        # torch.multinomial raise and takes the whole batch down. Sample that
        # request uniformly for now so that only it degrades.
        nan_rows = torch.isnan(logits).any(dim=-1)
        if nan_rows.any():
            logger.warning("NaN logits in %d request(s); sampling them uniformly", int(nan_rows.sum()))
            logits[nan_rows] = 0.0
''',
            ),
            edit(
                "python/lumen/sampling/sampler.py",
                r'''
    """Reference implementation; the fused kernel must match it."""
    probs_sort, probs_idx = probs.sort(dim=-1, descending=True)
''',
                r'''
    """Reference implementation; the fused kernel must match it."""
    # TODO(arjunrao): move this clamp into SamplingParams.verify() once the
    # OpenAI frontend stops sending top_p=0 for greedy requests.
    top_ps = top_ps.clamp(min=1e-6, max=1.0)
    probs_sort, probs_idx = probs.sort(dim=-1, descending=True)
''',
            ),
            append(
                "test/test_sampler.py",
                r'''
def test_nan_logits_do_not_crash_the_batch():
    logits = torch.tensor([[float("nan"), 1.0], [0.0, 5.0]])
    out = Sampler()(LogitsProcessorOutput(logits), make_info(2, top_k=1))
    assert out.shape == (2,)
    assert out[1].item() == 1


def test_zero_top_p_behaves_like_greedy():
    probs = torch.tensor([[0.1, 0.7, 0.2]])
    ids = top_k_top_p_min_p_sampling_from_probs_torch(
        probs, torch.tensor([3], dtype=torch.int32), torch.tensor([0.0]), torch.tensor([0.0])
    )
    assert ids.tolist() == [1]
''',
            ),
        ],
        "intent": {
            "category": "bugfix",
            "expected_verdict": "close",
            "focus": [
                {"path": "python/lumen/sampling/sampler.py", "symbol": "forward"},
                {"path": "python/lumen/sampling/sampler.py", "symbol": "top_k_top_p_min_p_sampling_from_probs_torch"},
            ],
            "tags": ["sampling", "bugfix", "todo", "fixme"],
            "has_test": True,
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1236,
        "author": "wang",
        "merged": "2026-09-06 10:15",
        "title": "[Perf] Parallel prefix sum in moe_align_block_size",
        "body": """
## 动机

`moe_align_block_size` 在 thread 0 上串行计算各 expert 的 cumsum。专家数为 128/256 时
（Qwen3-MoE、DeepSeek 系列），这段串行循环成了整个 kernel 的瓶颈。

## 修改

- 用 warp 级 inclusive scan（`__shfl_up_sync`）替换 thread 0 上的串行 cumsum
- 每个 expert 的 padding 由各自的线程并行计算
- 结果与原实现逐元素一致（用 benchmark/kernels/bench_moe_align.py 对拍）

## 性能（H100，block_size=64，topk=8）

| 专家数 | tokens | 修改前 (us) | 修改后 (us) |
|---:|---:|---:|---:|
| 128 | 256 | 21.4 | 12.7 |
| 256 | 4096 | 58.9 | 35.1 |

E=256 时整体提升 68%，E=8 时基本持平。
""",
        "ops": [
            edit(
                "csrc/moe/moe_align_kernel.cu",
                r'''
  // Serial prefix sum over experts, padding every expert to block_size.
  if (threadIdx.x == 0) {
    cumsum[0] = 0;
    for (int i = 1; i <= num_experts; ++i) {
      cumsum[i] = cumsum[i - 1] +
                  ceil_div(tokens_cnts[blockDim.x * num_experts + i - 1], block_size) *
                      block_size;
    }
    *total_tokens_post_pad = cumsum[num_experts];
  }
  __syncthreads();
''',
                r'''
  // Parallel prefix sum over experts: every thread pads the count of one
  // expert to block_size, warps scan with shuffles, then the warp totals are
  // scanned by the first warp and added back.
  __shared__ int32_t warp_sums[32];
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp_id = threadIdx.x / WARP_SIZE;
  int32_t padded = 0;
  if (threadIdx.x < num_experts) {
    padded = ceil_div(tokens_cnts[blockDim.x * num_experts + threadIdx.x], block_size) *
             block_size;
  }
  int32_t scan = padded;
#pragma unroll
  for (int offset = 1; offset < WARP_SIZE; offset <<= 1) {
    const int32_t other = __shfl_up_sync(0xffffffff, scan, offset);
    if (lane >= offset) {
      scan += other;
    }
  }
  if (lane == WARP_SIZE - 1) {
    warp_sums[warp_id] = scan;
  }
  __syncthreads();
  if (warp_id == 0) {
    const int num_warps = ceil_div((int)blockDim.x, WARP_SIZE);
    int32_t total = lane < num_warps ? warp_sums[lane] : 0;
#pragma unroll
    for (int offset = 1; offset < WARP_SIZE; offset <<= 1) {
      const int32_t other = __shfl_up_sync(0xffffffff, total, offset);
      if (lane >= offset) {
        total += other;
      }
    }
    if (lane < num_warps) {
      warp_sums[lane] = total;
    }
  }
  __syncthreads();
  if (threadIdx.x < num_experts) {
    const int32_t warp_offset = warp_id > 0 ? warp_sums[warp_id - 1] : 0;
    cumsum[threadIdx.x + 1] = warp_offset + scan;
    if (threadIdx.x == 0) {
      cumsum[0] = 0;
    }
    if (threadIdx.x == num_experts - 1) {
      *total_tokens_post_pad = warp_offset + scan;
    }
  }
  __syncthreads();
''',
            ),
        ],
        "intent": {
            "category": "perf",
            "expected_verdict": "close",
            "focus": [{"path": "csrc/moe/moe_align_kernel.cu", "symbol": "moe_align_block_size_kernel"}],
            "tags": ["moe", "kernel", "cuda", "perf", "i18n"],
            "numbers": ["提升 68%", "21.4", "12.7", "58.9", "35.1"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1237,
        "author": "hana",
        "merged": "2026-09-06 14:30",
        "title": "[Perf] Share one logits buffer across CUDA graph batch sizes",
        "body": """
Every captured batch size kept its own output tensors alive, so capture memory grew with
the number of graphs (35 by default). The graphs now write into slices of one logits
buffer sized for the largest batch.

Llama-3.1-70B, TP=4, H100, `--cuda-graph-max-bs 256`: capture memory 3.41 GB -> 0.74 GB
(-78%), capture time unchanged. The freed memory goes to the KV cache (+11% tokens).

`ModelRunner.init_cuda_graphs` in python/lumen/model_executor/model_runner.py now also
frees the warm-up activations before capture, which is where the rest of the savings
come from.
""",
        "ops": [
            edit(
                "python/lumen/model_executor/cuda_graph_runner.py",
                r'''
from typing import Dict, List

import torch

from lumen.distributed.parallel_state import graph_capture
''',
                r'''
from typing import Dict, List, Optional

import torch

from lumen.distributed.parallel_state import graph_capture
from lumen.layers.logits_processor import LogitsProcessorOutput
''',
            ),
            edit(
                "python/lumen/model_executor/cuda_graph_runner.py",
                r'''
        self.output_buffers: Dict[int, torch.Tensor] = {}
''',
                r'''
        self.shared_logits: Optional[torch.Tensor] = None
''',
            ),
            edit(
                "python/lumen/model_executor/cuda_graph_runner.py",
                r'''
    def capture(self, stream: torch.cuda.Stream) -> None:
        # Capture the largest batch first so smaller graphs reuse its memory.
        for bs in reversed(self.capture_bs):
            graph, output = self.capture_one_batch_size(bs, stream)
            self.graphs[bs] = graph
            self.output_buffers[bs] = output
''',
                r'''
    def capture(self, stream: torch.cuda.Stream) -> None:
        vocab_size = self.model_runner.model_config.vocab_size
        # One logits buffer for all graphs; graph `bs` writes rows [:bs].
        self.shared_logits = torch.empty((self.max_bs, vocab_size), dtype=torch.float32, device="cuda")
        # Capture the largest batch first so smaller graphs reuse its memory.
        for bs in reversed(self.capture_bs):
            self.graphs[bs] = self.capture_one_batch_size(bs, stream)
''',
            ),
            edit(
                "python/lumen/model_executor/cuda_graph_runner.py",
                r'''
        with torch.cuda.graph(graph, pool=self.graph_memory_pool, stream=stream):
            out = run_once()
        torch.cuda.synchronize()
        self.graph_memory_pool = graph.pool()
        return graph, out
''',
                r'''
        with torch.cuda.graph(graph, pool=self.graph_memory_pool, stream=stream):
            out = run_once()
            self.shared_logits[:bs].copy_(out.next_token_logits)
            del out  # only the shared buffer outlives the capture
        torch.cuda.synchronize()
        self.graph_memory_pool = graph.pool()
        return graph
''',
            ),
            edit(
                "python/lumen/model_executor/cuda_graph_runner.py",
                r'''
        self.graphs[bs].replay()
        output = self.output_buffers[bs]
        return output[:raw_bs]
''',
                r'''
        self.graphs[bs].replay()
        return LogitsProcessorOutput(next_token_logits=self.shared_logits[:raw_bs])
''',
            ),
        ],
        "intent": {
            "category": "perf",
            "expected_verdict": "close",
            "focus": [
                {"path": "python/lumen/model_executor/cuda_graph_runner.py", "symbol": "capture_one_batch_size"},
                {"path": "python/lumen/model_executor/cuda_graph_runner.py", "symbol": "replay"},
            ],
            "tags": ["perf", "cuda-graph", "memory"],
            "numbers": ["-78%", "3.41 GB", "0.74 GB", "+11%"],
            "body_mentions_untouched": ["python/lumen/model_executor/model_runner.py"],
        },
    },
    # ------------------------------------------------------------------
    {
        "kind": "squash",
        "number": 1238,
        "author": "tomasz",
        "merged": "2026-09-06 20:00",
        "title": "[Bugfix] Do not stream replacement characters for split UTF-8 sequences",
        # Written from a Latin-1 editor: the message itself is not valid UTF-8.
        "body": (
            b"Byte-level BPE tokenizers can split one character over several tokens. The\n"
            b"incremental detokenizer decoded every prefix eagerly, so a streamed \"caf\xe9\"\n"
            b"showed up as \"caf\\ufffd\" and the client never got the real character.\n"
            b"\n"
            b"Hold back trailing U+FFFD until the next token completes the character and\n"
            b"flush whatever is left when the request finishes.\n"
        ),
        "ops": [
            edit(
                "python/lumen/server/tokenizer_manager.py",
                r'''
    def step(self, new_token_ids: List[int]) -> str:
        self.token_ids.extend(new_token_ids)
        text = self.tokenizer.decode(
            self.token_ids, skip_special_tokens=self.skip_special_tokens
        )
        delta = text[len(self.emitted_text) :]
''',
                r'''
    def step(self, new_token_ids: List[int], finished: bool = False) -> str:
        self.token_ids.extend(new_token_ids)
        text = self.tokenizer.decode(
            self.token_ids, skip_special_tokens=self.skip_special_tokens
        )
        if not finished:
            # The last token may end in the middle of a multi-byte character;
            # emit everything before it and wait for the rest.
            text = text.rstrip("\ufffd")
        delta = text[len(self.emitted_text) :]
''',
            ),
            edit(
                "python/lumen/server/tokenizer_manager.py",
                r'''
            delta = self.detokenizers[rid].step(token_ids)
''',
                r'''
            delta = self.detokenizers[rid].step(token_ids, finished=done)
''',
            ),
            append(
                "test/test_tokenizer_manager.py",
                r'''
def test_incremental_detokenizer_holds_back_partial_characters():
    detok = IncrementalDetokenizer(ByteTokenizer())
    encoded = "café".encode()
    assert detok.step(list(encoded[:4])) == "caf"
    assert detok.step(list(encoded[4:])) == "é"


def test_incremental_detokenizer_flushes_on_finish():
    detok = IncrementalDetokenizer(ByteTokenizer())
    assert detok.step([0xC3], finished=True) == "\ufffd"
''',
            ),
        ],
        "intent": {
            "category": "bugfix",
            "expected_verdict": "close",
            "focus": [{"path": "python/lumen/server/tokenizer_manager.py", "symbol": "IncrementalDetokenizer"}],
            "tags": ["server", "bugfix", "unicode"],
            "has_test": True,
        },
    },
]
