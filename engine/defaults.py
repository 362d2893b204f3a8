"""The defaults and limits the command line states in its help, in a module that imports
nothing: `lmmreview --help` reads them without loading the rules they belong to."""

DEFAULT_JUDGE_MODEL = "gpt-4-0613"  # the judge of the MM-Vet paper
DISAGREEMENT = 0.3  # the |judge - human| filter's default threshold (engine.review)
SPREAD = 0.0  # the run-variance filter's default threshold: runs that disagree at all
# OpenAI's limits per batch input file (engine.batch).
MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1000 * 1000
# Model family by the start of a model's name (lower case; the settings' [families] table
# adds to it): a judge grading a model of its own family may favour it (engine.judge_stats).
DEFAULT_FAMILIES: dict[str, str] = {
    "gpt": "openai",
    "gpt-neo": "eleutherai",
    "gpt-neox": "eleutherai",
    "gpt-j": "eleutherai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
    "chatgpt": "openai",
    "claude": "anthropic",
    "gemini": "google",
    "gemma": "google",
    "palm": "google",
    "qwen": "qwen",
    "llama": "meta",
    "internvl": "internvl",
    "intern": "internvl",
    "llava": "llava",
    "deepseek": "deepseek",
    "mistral": "mistral",
    "pixtral": "mistral",
    "phi": "microsoft",
    "glm": "zhipu",
    "cogvlm": "zhipu",
    "minicpm": "openbmb",
    "yi": "01-ai",
    "grok": "xai",
}
