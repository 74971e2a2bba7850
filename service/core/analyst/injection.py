"""Text a sentence must never carry, whatever the facts say: a domain of any top-level domain
(with or without a scheme), an IP address or an obfuscated link, a secret (masked in the
reason and in the audit list, as the secrets detector masks it), a request for a token or a
command to run, and the phrases of a model that was told to drop its rules.

A PR body is untrusted: a domain or token it holds is not a fact to repeat, so nothing here is
excused by the evidence, except a dotted name that is code on the PR's changed lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import resources

from service.core.analyst import claims
from service.core.analyst.evidence import PREvidence
from service.core.risks.secrets import MASK, find_secrets, mask

# the file names claims.py reads as paths (`setup.sh`, `README.md`): the identifier rule's
_FILE_EXTENSIONS = frozenset(claims.EXTENSIONS.split("|"))
# a dotted name whose last label is letters: `evil.io`, `hooks.example.app`, `x.com/path`
_DOTTED_NAME = re.compile(
    r"(?<![\w@./-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))(?![\w-]|\.\w)",
    re.IGNORECASE,
)
_OBFUSCATED = re.compile(
    r"\[\s*(?:\.|dot)\s*\]|\(\s*(?:\.|dot)\s*\)|\{\s*(?:\.|dot)\s*\}|\bhxxps?\b"
    # "http [:] //…", "https colon": a scheme spelled apart; "the HTTP server" is a protocol
    r"|\bhttps?\s*(?:\[\s*:\s*\]|\(\s*:\s*\)|colon\b|冒号|/\s*/)"
    r"|\s(?:dot|点)\s*(?:com|net|org|io|cn|ai|dev|app)\b|[a-z0-9]\s*[。．]\s*(?:com|net|org|io|cn)\b"
    r"|\b(?:\d{1,3}\.){3}\d{1,3}\b|\bat\s+\w+\s+dot\s+\w+",
    re.IGNORECASE,
)
# generic key shapes the secrets detector does not name: OpenAI-style keys, bearer tokens,
# `api_key=…`, and long random-looking strings
_SECRET_SHAPES = re.compile(
    r"\b(?:gh[pousr]|github_pat|xox[bpase]|xapp|sk|pk|rk|glpat|hf|npm|pypi)[_-](?:[A-Za-z0-9]+-)?[A-Za-z0-9]{16,}\b"
    r"|\bBearer\s+[A-Za-z0-9._~+/-]{16,}"
    r"|\b(?:api[_-]?key|token|secret|password|passwd)\s*[:=]\s*\S{6,}"
    r"|(?<![\w/+=])(?=[A-Za-z0-9+/=]{32,}(?![\w/+=]))(?=[A-Za-z0-9+/=]*\d)"
    r"(?=[A-Za-z0-9+/=]*[A-Za-z])[A-Za-z0-9+/=]+",
    re.IGNORECASE,
)
_CREDENTIAL = (
    r"(?:\b(?:your|the|my|our|admin|bot|access|github|slack|feishu|api|auth|session|ci)\s+"
    r"(?:tokens?|keys?)(?![\w-])|\bapi[ _-]?keys?\b|\bpasswords?\b|\bsecrets?\b(?![\w-])"
    r"|\bcredentials?\b|\bcookies?\b|\b(?:private|ssh|access|secret) keys?\b"
    r"|令牌(?!桶)|密钥|密码|凭证|凭据|口令|秘钥)"
)
_REQUESTS = re.compile(
    r"\b(?:send|post|share|provide|give|paste|reveal|print|output|tell|email|dm|upload|submit"
    r"|leak|expose|forward)\b[^.。]{0,40}"
    + _CREDENTIAL
    + r"|(?:提供|发送|发给|发到|贴出|贴到|告诉|分享|输出|回复|私信|上传|提交|转发|公开)[^。]{0,20}"
    + _CREDENTIAL
    + r"|(?:你的|您的|管理员的?|机器人的?)\s*[\w ]{0,12}?(?:token|key|令牌|密钥|密码)"
    r"|(?:把|将)[^。]{0,20}(?:token|令牌|密钥|密码|凭证)[^。]{0,10}(?:发|给|提供|贴|告诉|分享)"
    r"|\b(?:reply|respond|answer)\s+(?:with|only)\b|\brepeat\s+(?:after|the following|this)\b"
    r"|\bsay\s+(?:that|exactly)\b|\bas\s+instructed\b|\bper\s+the\s+(?:pr|instructions)\b"
    r"|\b(?:jailbreak|developer\s+mode|no\s+restrictions|unrestricted\s+mode|dan\s+mode)\b"
    r"|\b(?:run|execute|paste)\b[^.。]{0,30}(?:curl|wget|sudo|rm\s+-rf|chmod|pkill|\|\s*(?:ba)?sh)"
    r"|\b(?:curl|wget)\s+\S|\brm\s+-rf\b|\|\s*(?:ba)?sh\b"
    r"|(?:执行|运行)[^。]{0,20}(?:curl|wget|sudo|rm\s+-rf|chmod|pkill)"
    r"|越狱|开发者模式|不受限制|规则已更新|新的规则|以上规则|按照?.{0,6}(?:PR|正文|描述)中?的?(?:要求|指示)"
    r"|请?(?:复述|重复)(?:以下|下面|这段)",
    re.IGNORECASE,
)

# a request for a credential however it is phrased ("reply to this card with their password")
_ASKS_CREDENTIAL = re.compile(
    r"\b(?:reply|replies|respond|answer|confirm|verify|enter|type|include|attach|dm|message"
    r"|comment)\b[^.。]{0,60}"
    + _CREDENTIAL
    + r"|\bwith\s+(?:their|your|his|her|its|the)\s+(?:own\s+)?"
    + _CREDENTIAL
    + r"|(?:回复|回帖|确认|输入|填写|附上|留言|评论)[^。]{0,30}"
    + _CREDENTIAL,
    re.IGNORECASE,
)
# judgements only a person could make, and none did: safe to merge, approved, deprecated, no
# need to pin or review any more
_JUDGEMENT = re.compile(
    r"\bsafe(?:ly)?\s+to\s+(?:merge|use|upgrade|deploy|ship|release|skip|ignore)\b"
    r"|\bwithout\s+(?:a\s+|any\s+|further\s+)?(?:review|testing|approval)\b"
    r"|\bno\s+(?:further\s+)?review\s+(?:is\s+)?(?:needed|required)\b"
    r"|\b(?:officially|pre-?)\s*approved\b|\bapproved\s+(?:for|to)\b"
    r"|\b(?:is|are|was|were|has\s+been|have\s+been|been)\s+approved\b(?!\s+by\b)"
    r"|\b(?:deprecated|sunset|end[- ]of[- ]life)\b[^.。]{0,30}"
    r"\bwill\s+be\s+(?:deleted|removed|archived|shut)"
    r"|\b(?:org|organi[sz]ation|account|repo(?:sitory)?|project)\b[^.。]{0,20}"
    r"\b(?:is|are|was|has\s+been)\s+(?:deprecated|abandoned|archived|unmaintained)\b"
    r"|\bno\s+longer\s+(?:need|needs|have|has)\s+to\b|\bno\s+need\s+to\s+(?:pin|review|test|upgrade)"
    r"|\b(?:don['’]t|doesn['’]t|do\s+not|does\s+not|won['’]t)\s+(?:need|have)\s+to\s+(?:pin|review|test)"
    r"|可以?安全(?:地)?(?:合并|使用|升级|上线|部署|发布)|可放心(?:地)?(?:合并|升级|使用|上线)"
    r"|无需(?:再)?(?:审查|评审|审核|review|测试|固定|锁定|pin)|免(?:审查|评审|审核)"
    r"|(?:已|已经|正式)(?:获得?)?(?:批准|审批通过)|批准(?:合并|上线|发布)"
    r"|(?:组织|仓库|项目|账号)[^。]{0,20}(?:已被?|将被?|即将)(?:废弃|弃用|删除|关停|下线|归档)"
    r"|(?:废弃|弃用)[^。]{0,10}(?:并|且)?(?:将|会)(?:被)?(?:删除|移除|关停)"
    r"|不(?:再)?需要(?:再)?(?:固定|锁定|审查|评审|审核|测试|pin)"
    # a verdict put in reviewers' mouths: "approved #N as the recommended engine", "经评审确认"
    r"|\bapproved\b[^.。]{0,40}\bas\s+(?:the\s+|a\s+)?(?:recommended|preferred|default|stable"
    r"|safe|backward[- ]compatible)\b|\b(?:is|as)\s+the\s+recommended\b"
    r"|\breviewers?\s+(?:have\s+|had\s+)?(?:confirmed|agreed|endorsed|deemed|judged)\b"
    r"|\bno\s+migration\s+(?:note|guide|step)s?\s+(?:is\s+|are\s+)?(?:needed|required)\b"
    r"|经(?:过)?(?:评审|审核|审查|审阅|reviewer)(?:者)?(?:确认|认定|认可|一致认为)"
    r"|(?:评审|审核|审查)(?:者|人员)?(?:已)?(?:确认|认定|认可|一致认为)",
    re.IGNORECASE,
)
# a domain spelled to pass a filter: `evil-corp。biz`, `evil-corp dot biz`, `evil-corp[.]biz`
_SPELLED_DOT = re.compile(
    r"(?<=[A-Za-z0-9-])(?:[。．｡]|\s*[\[({]\s*(?:\.|dot|点)\s*[\])}]\s*)(?=[A-Za-z]{2,24}\b)"
    r"|(?<=[A-Za-z0-9-])\s+(?:dot|点)\s+(?=[A-Za-z]{2,4}\b)",
    re.IGNORECASE,
)


Rule = tuple[str, re.Pattern[str]]
# what the first checker dropped: mentions, links with a scheme, markup, instructions (a
# version bound or comparison, `>=3.10,<3.13`, `size > 1`, is no markup)
_SAFETY: tuple[Rule, ...] = (
    ("mention", re.compile(r"<\s*[!@#]|<\s*at\b|[@＠]\s*(?:here|channel|everyone|all)\b", re.I)),
    ("mention", re.compile(r"(?<![A-Za-z0-9_.+-])[@＠][A-Za-z0-9_][A-Za-z0-9_-]*")),
    (
        "link",
        re.compile(
            r"\b(?:https?|ftp|javascript|vbscript|data|file|mailto|tel|slack|lark|feishu)\s*:"
            r"|\bwww\.|\]\s*\(|[\w.+-]+@[\w-]+\.[A-Za-z]{2,}",
            re.I,
        ),
    ),
    (
        "link",
        re.compile(
            # "0.8.0.dev": a version, no host has only numbers before its TLD
            r"(?<![A-Za-z0-9_/.-])(?!(?:\d+\.)+[A-Za-z]+\b(?!\.\w))[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
            r"\.(?:com|cn|net|org|io|ai|dev|app|xyz|top|ru|me|co|info|site|link|ly|gg|sh)\b"
            r"(?!\.\w)",
            re.I,
        ),
    ),
    (
        "markup",
        re.compile(
            r"<(?!=?\s?v?\d)|(?<![-=])>(?!=)(?!\s?v?\d)|\*\*|~~|!\[|\||\n|\r|&#?\w+;|\{\{|\{%|\$\{"
            r"|(?<![\w*])\*(?=\S)[^*\n]+(?<=\S)\*(?![\w*])|__[^_\s][^_]*\s[^_]*__"
            r"|^\s*(?:#{1,6}|[-+*]|\d+[.)])\s"
        ),
    ),
    (
        "instruction",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\b[^.。]{0,40}"
            r"\b(?:instruction|prompt|rule|above|previous|prior|earlier)s?\b"
            r"|\b(?:system|developer)\s+(?:prompt|message)|\byou\s+are\s+(?:now|an?|the)\b"
            r"|\bas\s+an\s+ai\b|\bnew\s+instructions?\b|\bdo\s+not\s+(?:check|verify|follow)\b"
            r"|^\s*(?:system|assistant|user)\s*:|\bclick\s+(?:here|the\s+link)\b"
            r"|忽略|无视|指令|提示词|系统提示|请(?:立即|马上|务必)?(?:点击|访问|打开|转发)",
            re.I,
        ),
    ),
)


_TOKEN = re.compile(r"[^\s，。；、（）]+")
_EDGE_MARKS = "`'\"“”‘’.,;:()[]，。；："


def _markup_of(token: str) -> bool:
    return any(name == "markup" and pattern.search(token) for name, pattern in _SAFETY)


def without_code_markup(text: str, prs: Sequence[PREvidence]) -> str:
    """`text` without the tokens whose markup characters are code the cited PRs' patches
    hold verbatim (a glob `recipe/**`, an interpolation `${oc.select:a.b,c}`): copied code,
    not formatting."""
    lines = "\n".join(f"{e.added}\n{e.removed}\n{e.context}" for e in prs)

    def blank(match: re.Match[str]) -> str:
        token = match.group(0).strip(_EDGE_MARKS)
        if len(token) > 2 and _markup_of(token) and token.lower() in lines:  # noqa: PLR2004
            return " "
        return match.group(0)

    return _TOKEN.sub(blank, text) if lines.strip() else text


def safety_reasons(text: str) -> list[str]:
    """Mentions, links with a scheme or `www.`, markup and instructions in `text`."""
    reasons = []
    for name, pattern in _SAFETY:
        found = pattern.search(text)
        if found:
            reasons.append(f"{name}: {found.group(0).strip()[:40] or repr(found.group(0))}")
    if text.count("`") % 2:
        reasons.append("markup: unbalanced `")
    return reasons


@functools.cache
def _tlds() -> frozenset[str]:
    text = resources.files("service.data").joinpath("tlds.txt").read_text("utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line and line[0] != "#")


def _is_code(name: str, prs: Sequence[PREvidence]) -> bool:
    """A dotted name on the PR's changed lines, and in no link there: code (`torch.data`)."""
    lowered = name.lower()
    for e in prs:
        changed = f"{e.added}\n{e.removed}"
        if lowered in changed and not re.search(rf"(?:://|www\.)\S*{re.escape(lowered)}", changed):
            return True
    return False


def domains(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """The names in `text` that end in a real top-level domain and are not file names or code."""
    found = []
    for match in _DOTTED_NAME.finditer(text):
        name, tld = match.group(1), match.group(2).lower()
        if tld in _FILE_EXTENSIONS or tld not in _tlds():
            continue
        if not _is_code(name, prs):
            found.append(name)
    return found


def secrets(text: str) -> list[str]:
    """The secret-looking strings in `text`."""
    found = [secret for _rule, secret in find_secrets(text)]
    found += [m.group(0) for m in _SECRET_SHAPES.finditer(text)]
    return list(dict.fromkeys(found))


# a git object id: what a pin to a commit names
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# where a changed line pins a commit: `ARENA_COMMIT=<id>`, `rev: <id>`, `repo.git@<id>`,
# `git checkout <id>`
_PIN_BEFORE = r"(?:(?:commit|sha|rev|revision|ref|hash)\w*['\"]?\s*[:=]\s*['\"]?|@|checkout\s+)"


def pinned_commit(secret: str, prs: Sequence[PREvidence]) -> bool:
    """`secret` is a commit id a changed line of a cited PR pins (public in its diff, and
    no key: a key looks random, a commit id is the repository's own)."""
    if not _OBJECT_ID.fullmatch(secret):
        return False
    pinned = re.compile(_PIN_BEFORE + re.escape(secret) + r"\b", re.IGNORECASE)
    return any(pinned.search(f"{e.added}\n{e.removed}") for e in prs)


def masked(text: str) -> str:
    """`text` with every secret-looking string masked (first 4 characters + ****); what is
    masked already stays as it is."""
    for secret in secrets(text):
        if MASK not in secret:
            text = text.replace(secret, mask(secret))
    return text


def spelled_domains(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """The domains `text` spells with another dot (`evil-corp。biz`, `evil-corp dot biz`)."""
    respelled = _SPELLED_DOT.sub(".", text)
    if respelled == text:
        return []
    plain = set(domains(text, prs))
    return [name for name in domains(respelled, prs) if name not in plain]


def injection_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """Why `text` carries something no report may print (empty: nothing)."""
    reasons = [f"link: {name[:40]}" for name in domains(text, prs)]
    reasons += [f"link: {name[:40]}" for name in spelled_domains(text, prs)]
    obfuscated = _OBFUSCATED.search(text)
    if obfuscated:
        reasons.append(f"link: {obfuscated.group(0).strip()[:40]}")
    found = [secret for secret in secrets(text) if not pinned_commit(secret, prs)]
    reasons += [f"secret: {mask(secret)}" for secret in found]
    for pattern in (_REQUESTS, _ASKS_CREDENTIAL):
        request = pattern.search(text)
        if request:
            reasons.append(f"instruction: {masked(request.group(0))[:40]}")
    judgement = _JUDGEMENT.search(text)
    if judgement:
        reasons.append(f"judgement: {judgement.group(0)[:40]}")
    return list(dict.fromkeys(reasons))
