//! The credential families: one pattern per token format, written for this crate after the
//! families a secret scanner's default ruleset covers (cloud keys, forge and registry tokens,
//! chat webhooks, payment keys, URLs with passwords, Azure shared access signatures,
//! authorization headers, key assignments).
//!
//! A pattern names the secret itself with the group `s` (the whole match otherwise); its
//! [`Check`] says what must further hold of that text. `\b` is rewritten to an ASCII word
//! boundary when compiled, so Chinese text next to a token neither hides it nor slows the
//! scan down.

/// What a matched secret must further satisfy to be reported.
#[derive(Debug, Clone, Copy)]
pub(super) enum Check {
    /// The match alone is the finding (a private key header).
    Always,
    /// Not a placeholder (`AKIA…EXAMPLE`, `xoxb-your-token`).
    Real,
    /// Not a placeholder, and generated-looking with at least this many bits per character:
    /// for formats whose prefix alone is common in ordinary text (`sk-…` class names).
    Random(f64),
    /// An unlabelled AWS secret key: 40 characters of base64 with both cases and digits.
    AwsSecret,
    /// A password in a URL: anything but a placeholder.
    Password,
    /// A value assigned to a secret-sounding name: long, random, not a placeholder.
    Assigned,
}

pub(super) struct Rule {
    pub kind: &'static str,
    pub pattern: &'static str,
    pub check: Check,
}

const fn rule(kind: &'static str, pattern: &'static str, check: Check) -> Rule {
    Rule {
        kind,
        pattern,
        check,
    }
}

use Check::{Always, Assigned, AwsSecret, Password, Random, Real};

/// Specific formats first: when two rules find a secret at the same place, the earlier one
/// names it.
pub(super) const RULES: &[Rule] = &[
    rule(
        "a private key block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        Always,
    ),
    // the END line alone: the rest of a key whose BEGIN line is not in the text
    rule("a private key block", super::block::END, Always),
    rule(
        "an AWS access key id",
        r"\b(?P<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        Real,
    ),
    rule(
        "an AWS secret access key",
        r"(?i)aws_?secret_?(?:access_?)?key\W{0,4}(?P<s>[A-Za-z0-9/+=]{40})\b",
        Real,
    ),
    rule(
        "a GitHub token",
        r"\b(?P<s>gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        Real,
    ),
    rule(
        "a GitLab token",
        r"\b(?P<s>gl(?:pat|ptt|rt|dt|ft|soat|imt|agent|oas)-[0-9A-Za-z_-]{20,}|GR1348941[0-9A-Za-z_-]{20,}|glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20,})",
        Real,
    ),
    rule(
        "an OpenAI API key",
        r"\b(?P<s>sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,})",
        Real,
    ),
    rule(
        "an Anthropic API key",
        r"\b(?P<s>sk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_-]{40,})",
        Real,
    ),
    rule(
        "an API secret key (sk-…)",
        r"\b(?P<s>sk-[A-Za-z0-9_-]{20,})",
        Random(3.0),
    ),
    rule(
        "a Slack token",
        r"\b(?P<s>xox[abposre]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}|xapp-\d-[A-Z0-9]{8,}-\d{6,}-[a-z0-9]{32,})",
        Real,
    ),
    rule(
        "a Slack webhook URL",
        r"(?P<s>hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{30,})",
        Real,
    ),
    rule(
        "a Discord webhook URL",
        r"(?P<s>discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{60,})",
        Real,
    ),
    rule(
        "a Microsoft Teams webhook URL",
        r"(?P<s>\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{60,})",
        Real,
    ),
    rule(
        "a Google API key",
        r"\b(?P<s>AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)",
        Real,
    ),
    rule(
        "a Google OAuth client secret",
        r"\b(?P<s>GOCSPX-[A-Za-z0-9_-]{28})",
        Real,
    ),
    rule(
        "a Google OAuth access token",
        r"\b(?P<s>ya29\.[0-9A-Za-z_-]{30,})",
        Random(3.0),
    ),
    rule(
        "a Google service-account key",
        r#""private_key_id"\s*:\s*"(?P<s>[0-9a-f]{40})""#,
        Real,
    ),
    rule(
        "a Stripe key",
        r"\b(?P<s>(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{20,}|whsec_[A-Za-z0-9+/]{32,})",
        Real,
    ),
    rule(
        "an npm token",
        r"\b(?P<s>npm_[A-Za-z0-9]{36})\b",
        Random(3.0),
    ),
    rule(
        "a PyPI token",
        r"\b(?P<s>pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,})",
        Real,
    ),
    rule(
        "a Hugging Face token",
        r"\b(?P<s>(?:hf_|api_org_)[A-Za-z0-9]{34})\b",
        Random(3.5),
    ),
    rule(
        "a SendGrid API key",
        r"\b(?P<s>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)",
        Real,
    ),
    rule(
        "a Twilio key or account id",
        r"\b(?P<s>(?:SK|AC)[0-9a-fA-F]{32})\b",
        Random(3.0),
    ),
    rule(
        "an Azure storage account key",
        r"(?i)\bAccountKey=(?P<s>[A-Za-z0-9+/]{40,}={0,2})",
        Random(4.0),
    ),
    rule(
        "an Azure AD client secret",
        r"(?:^|[^A-Za-z0-9_~.-])(?P<s>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)",
        Real,
    ),
    rule(
        "a DigitalOcean token",
        r"\b(?P<s>do[opr]_v1_[a-f0-9]{64})\b",
        Real,
    ),
    rule(
        "a Shopify token",
        r"\b(?P<s>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b",
        Real,
    ),
    rule(
        "a Linear API key",
        r"\b(?P<s>lin_api_[A-Za-z0-9]{40})\b",
        Real,
    ),
    rule(
        "a Postman API key",
        r"\b(?P<s>PMAK-[a-f0-9]{24}-[a-f0-9]{34})\b",
        Real,
    ),
    rule(
        "a Doppler token",
        r"\b(?P<s>dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44})\b",
        Real,
    ),
    rule(
        "a Dynatrace token",
        r"\b(?P<s>dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64})\b",
        Real,
    ),
    rule(
        "a New Relic key",
        r"\b(?P<s>NR(?:AK|II|JS)-[A-Za-z0-9-]{19,32})\b",
        Random(3.0),
    ),
    rule(
        "a HashiCorp Vault token",
        r"\b(?P<s>hv[sbr]\.[A-Za-z0-9_-]{24,})",
        Random(3.0),
    ),
    rule(
        "a Terraform Cloud token",
        r"\b(?P<s>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})",
        Real,
    ),
    rule(
        "a Grafana token",
        r"\b(?P<s>glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
        Real,
    ),
    rule(
        "a Databricks token",
        r"\b(?P<s>dapi[a-f0-9]{32}(?:-\d)?)\b",
        Real,
    ),
    rule(
        "a Sentry token",
        r"\b(?P<s>sntry[su]_[A-Za-z0-9+/=_-]{40,})",
        Real,
    ),
    rule(
        "an Atlassian API token",
        r"\b(?P<s>ATATT3[A-Za-z0-9_=-]{150,})",
        Real,
    ),
    rule(
        "a Mailchimp API key",
        r"\b(?P<s>[0-9a-f]{32}-us\d{1,2})\b",
        Real,
    ),
    rule(
        "a Mailgun API key",
        r"\b(?P<s>key-[0-9a-f]{32})\b",
        Random(3.0),
    ),
    rule(
        "a Square token",
        r"\b(?P<s>sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43})",
        Real,
    ),
    rule(
        "a Telegram bot token",
        r"\b(?P<s>\d{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|$)",
        Real,
    ),
    rule(
        "an age secret key",
        r"\b(?P<s>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})\b",
        Real,
    ),
    rule(
        "a Heroku API key",
        r"\b(?P<s>HRKU-AA[0-9A-Za-z_-]{58})",
        Real,
    ),
    rule(
        "a PlanetScale token",
        r"\b(?P<s>pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64})",
        Real,
    ),
    rule(
        "a package registry token",
        r"\b(?P<s>pul-[a-f0-9]{40}|pnu_[A-Za-z0-9]{36}|rubygems_[a-f0-9]{48}|CLOJARS_[a-z0-9]{60}|rdme_[a-z0-9]{70})\b",
        Real,
    ),
    rule(
        "a Sendinblue API key",
        r"\b(?P<s>xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16})\b",
        Real,
    ),
    rule(
        "a payment API key",
        r"\b(?P<s>shippo_(?:live|test)_[a-f0-9]{40}|duffel_(?:test|live)_[A-Za-z0-9_=-]{43}|FLWSECK_TEST-[a-hA-H0-9]{32}-X|EZ[AT]K[A-Za-z0-9]{54})",
        Real,
    ),
    rule(
        "an Alibaba Cloud access key id",
        r"\b(?P<s>LTAI[A-Za-z0-9]{20})\b",
        Random(3.0),
    ),
    rule(
        "a service API token",
        r"\b(?P<s>tfp_[A-Za-z0-9_.=-]{59}|fio-u-[A-Za-z0-9_=-]{64}|ico-[A-Za-z0-9]{32}|tk-us-[A-Za-z0-9_-]{48}|fo1_[A-Za-z0-9_-]{43}|v1\.0-[a-f0-9]{24}-[a-f0-9]{146})",
        Random(3.0),
    ),
    rule(
        "an OpenShift token",
        r"(?P<s>sha256~[A-Za-z0-9_-]{43})",
        Real,
    ),
    rule(
        "a JSON web token",
        r"\b(?P<s>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
        Real,
    ),
    rule(
        "an authorization header",
        r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+(?P<s>[A-Za-z0-9._~+/=-]{16,})"#,
        Random(3.0),
    ),
    rule(
        "a URL with a password",
        r#"(?i)\b[a-z][a-z0-9+.-]{0,30}(?::[a-z][a-z0-9+.-]{0,30})?://(?P<u>[^\s:/@'"]*):(?P<s>[^\s@/'"]+)@(?P<h>[^\s/:'"?#]+)"#,
        Password,
    ),
    rule(
        "an Azure shared access signature",
        r"(?i)[?&]sig=(?P<s>(?:[A-Za-z0-9+/]|%2[BF]){30,}(?:=|%3D){0,2})",
        Real,
    ),
    rule(
        "an AWS secret access key",
        r"(?:^|[^A-Za-z0-9/+=_.-])(?P<s>[A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=_-])",
        AwsSecret,
    ),
    rule(
        "a secret assigned in the text",
        r#"(?i)(?:^|[^A-Za-z0-9_])(?:[a-z0-9]+[_.-])*(?:password|passwd|pwd|passphrase|secret|token|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|credentials?|private[_.-]?key|client[_.-]?secret|signing[_.-]?key)(?:[_.-][a-z0-9]+)*["']?\s*(?::=|=>|=|:|：|＝)\s*["'`]?(?P<s>[^\s"'`,;&:<>]+)"#,
        Assigned,
    ),
];

/// The rules whose finding is widened to the whole key block (see `block`).
pub(super) const KEY_BEGIN: usize = 0;
pub(super) const KEY_END: usize = 1;

/// Shortest assigned value reported (characters).
pub(super) const MIN_ASSIGNED: usize = 16;
