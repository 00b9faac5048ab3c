# Data for scripts/make-sample-repo.py: identities, special files and the
# initial import. Executed by the builder with the helpers edit(), write(),
# append(), delete(), rename(), sub_all(), generate(), revert(), skeleton()
# in scope. Later files of this directory append to CHANGES in date order.
#
# A change is a dict:
#   kind      "squash" | "merge" | "commit"
#   number    PR number (squash, merge)
#   author    key of AUTHORS (squash, commit); merger (merge)
#   merged    "YYYY-MM-DD HH:MM" in UTC = committer date (squash, merge)
#   date      "YYYY-MM-DD HH:MM +ZZZZ" author = committer date (commit)
#   title / subject, body   {sha:N} and {title:N} expand to an earlier PR's
#             squash sha / title; a bytes body is written verbatim
#   ops       list of operations
#   intent    what a careful reviewer should make of the change

REPO = "lumen-ai/lumen"
REMOTE = "https://github.com/lumen-ai/lumen.git"

GITHUB_COMMITTER = ("GitHub", "noreply@github.com")

AUTHORS = {
    # maintainer; id+login noreply address
    "lukas": ("Lukas Becker", "5512345+lbecker@users.noreply.github.com"),
    "mei": ("Mei Chen", "41234567+meichen-gpu@users.noreply.github.com"),
    # old-style noreply address without the numeric id
    "arjun": ("Arjun Rao", "arjunrao@users.noreply.github.com"),
    "priya": ("Priya Natarajan", "priya-n@users.noreply.github.com"),
    "hana": ("Hana Sato", "88123456+hsato@users.noreply.github.com"),
    "sofia": ("Sofia Marin", "61230987+sofiamarin@users.noreply.github.com"),
    # company addresses: no GitHub login can be derived
    "tomasz": ("Tomasz Wiśniewski", "tomasz.wisniewski@corvidlabs.io"),
    "diego": ("Diego Fernández", "diego.fernandez@helixcompute.com"),
    "wang": ("Wang Lei", "wanglei@deepriver-ai.cn"),
    "dependabot": ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"),
}

# Files stored with unusual bytes. The builder converts on write and back on
# read, so edits below are written as ordinary LF / UTF-8 text.
FILE_FORMATS = {
    "python/lumen/server/openai_protocol.py": ["crlf"],
    "python/lumen/layers/activation.py": ["no_eol"],
    "csrc/cpu/numa_utils.cc": ["latin1"],
}

MOE_CONFIG_DIR = "python/lumen/layers/moe/configs/"

CHANGES = [
    {
        "kind": "commit",
        "author": "lukas",
        "date": "2026-08-31 18:40 +0200",
        "subject": "Initial import of lumen",
        "body": """
Import the lumen serving engine as of the 0.4.3 release from the internal
repository. History before this point is not public.
""",
        "ops": [
            skeleton(),
            generate(MOE_CONFIG_DIR + "E=64,N=1024,device_name=NVIDIA_H100.json", "moe_config", 1),
            generate(MOE_CONFIG_DIR + "E=8,N=14336,device_name=NVIDIA_H100.json", "moe_config", 2),
            generate(MOE_CONFIG_DIR + "E=60,N=1408,device_name=NVIDIA_H100.json", "moe_config", 3),
            generate(MOE_CONFIG_DIR + "E=64,N=1024,device_name=NVIDIA_A100-SXM4-80GB.json", "moe_config", 4),
        ],
        "intent": {
            "category": "feature",
            "expected_verdict": "skim",
            "tags": ["initial"],
            "has_test": True,
        },
    },
]
