//! The secret families' cases: for each, tokens it must find and near misses it must pass.
//! Tokens are generated from a fixed seed (`r`) so no credential-shaped literal sits in the
//! source.

pub(super) const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX: &str = "0123456789abcdef";
pub(super) const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const UPDIG: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const B32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

/// `n` characters of `alphabet`, the same for the same seed.
pub(super) fn r(alphabet: &str, n: usize, seed: u64) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            chars[((x >> 33) % chars.len() as u64) as usize]
        })
        .collect()
}

pub(super) struct Case {
    pub(super) kind: &'static str,
    pub(super) found: Vec<String>,
    pub(super) near: Vec<String>,
}

fn case(kind: &'static str, found: &[String], near: &[&str]) -> Case {
    Case {
        kind,
        found: found.to_vec(),
        near: near.iter().map(|s| s.to_string()).collect(),
    }
}

/// Every family's case.
pub(super) fn cases() -> Vec<Case> {
    let mut all = key_and_vendor_cases();
    all.extend(chat_cases());
    all.extend(cloud_and_registry_cases());
    all.extend(header_and_azure_cases());
    all.extend(service_cases());
    all.extend(more_service_cases());
    all.extend(registry_and_token_cases());
    all
}

/// Private keys, AWS, code hosts and AI vendors.
fn key_and_vendor_cases() -> Vec<Case> {
    vec![
        case(
            "a private key block",
            &[
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE".into(),
                "-----BEGIN OPENSSH PRIVATE KEY-----".into(),
            ],
            &["-----BEGIN PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----"],
        ),
        case(
            "an AWS access key id",
            &[
                format!("key AKIA{}", r(B32, 16, 1)),
                format!("ASIA{}", r(B32, 16, 2)),
            ],
            &[
                "AKIAIOSFODNN7EXAMPLE",
                "AKIAXXXXXXXXXXXXXXXX",
                "AKIA is a prefix",
            ],
        ),
        case(
            "an AWS secret access key",
            &[
                format!("aws_secret_access_key = {}", r(B64, 40, 3)),
                format!("the key is {} now", r(B64, 40, 4)),
            ],
            &[
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "fn FwpmProviderContextSetSecurityInfoByKey0(engine: HANDLE)",
                "pub totalInboundRatelimitDiscardedICMPv6Pkts: u64,",
                "merged 3f9a1c0e5b7d2468ace13579bdf02468ace13579 into main",
                "see TheQuickBrownFoxJumpsOverTheLazyDogAgain",
            ],
        ),
        case(
            "a GitHub token",
            &[
                format!("ghp_{}", r(ALNUM, 36, 5)),
                format!("github_pat_{}", r(ALNUM, 82, 6)),
            ],
            &["ghp_short123", "the ghp_ prefix"],
        ),
        case(
            "a GitLab token",
            &[
                format!("glpat-{}", r(ALNUM, 20, 7)),
                format!("glrt-{}", r(ALNUM, 24, 8)),
            ],
            &["glpat-tooshort", "glpat-xxxxxxxxxxxxxxxxxxxx"],
        ),
        case(
            "an OpenAI API key",
            &[format!("sk-proj-{}", r(URLSAFE, 56, 9))],
            &["sk-proj-readme"],
        ),
        case(
            "an Anthropic API key",
            &[format!("sk-ant-api03-{}", r(URLSAFE, 93, 10))],
            &["sk-ant-api03-short"],
        ),
        case(
            "an API secret key (sk-…)",
            &[format!("sk-{}", r(ALNUM, 32, 11))],
            &[
                "sk-button-primary-large-rounded",
                "class=\"sk-navigation-menu-item-v2-active\"",
                "sk-learn is a library",
            ],
        ),
    ]
}

/// Chat tools' tokens and webhooks.
fn chat_cases() -> Vec<Case> {
    vec![
        case(
            "a Slack token",
            &[
                format!("xoxb-2817364510-{}", r(ALNUM, 24, 12)),
                format!(
                    "xapp-1-A{}-2817364510943-{}",
                    r(UPDIG, 10, 13),
                    r(HEX, 64, 14)
                ),
            ],
            &["xoxb-your-token-here", "xapp-1-ABC-123"],
        ),
        case(
            "a Slack webhook URL",
            &[format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                r(UPDIG, 8, 15),
                r(UPDIG, 10, 16),
                r(ALNUM, 24, 17)
            )],
            &[
                "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
                "post to hooks.slack.com/services/",
            ],
        ),
        case(
            "a Discord webhook URL",
            &[format!(
                "https://discord.com/api/webhooks/981726354018273645/{}",
                r(URLSAFE, 68, 18)
            )],
            &["https://discord.com/api/webhooks/123/abc"],
        ),
        case(
            "a Microsoft Teams webhook URL",
            &[format!(
                "https://acme.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}",
                r(HEX, 32, 19),
                r(HEX, 32, 20),
                r(HEX, 32, 21)
            )],
            &["https://acme.webhook.office.com/webhookb2/"],
        ),
    ]
}

/// Google, Stripe, package registries, SendGrid and Twilio.
fn cloud_and_registry_cases() -> Vec<Case> {
    vec![
        case(
            "a Google API key",
            &[format!("AIza{}", r(ALNUM, 35, 22))],
            &["AIzaShortKey"],
        ),
        case(
            "a Google OAuth client secret",
            &[format!("GOCSPX-{}", r(ALNUM, 28, 23))],
            &["GOCSPX-short"],
        ),
        case(
            "a Google OAuth access token",
            &[format!("ya29.a0{}", r(URLSAFE, 60, 85))],
            &["ya29.short"],
        ),
        case(
            "a Google service-account key",
            &[format!("\"private_key_id\": \"{}\"", r(HEX, 40, 24))],
            &["\"private_key_id\": \"\""],
        ),
        case(
            "a Stripe key",
            &[
                format!("sk_test_{}", r(ALNUM, 24, 25)),
                format!("rk_live_{}", r(ALNUM, 24, 26)),
            ],
            &["pk_test_TYooMQauvdEDq54NiTphI7jx", "sk_test_short"],
        ),
        case(
            "an npm token",
            &[format!("npm_{}", r(ALNUM, 36, 27))],
            &[
                "npm_config_registry",
                "npm_lifecycle_event_is_set_by_npm_itself",
            ],
        ),
        case(
            "a PyPI token",
            &[format!("pypi-AgEIcHlwaS5vcmc{}", r(URLSAFE, 70, 28))],
            &["pypi-packages-mirror", "pypi-AgEIcHlwaS5vcmc"],
        ),
        case(
            "a Hugging Face token",
            &[format!("hf_{}", r(LETTERS, 34, 29))],
            &["hf_hub_download", "hf_transfer"],
        ),
        case(
            "a SendGrid API key",
            &[format!("SG.{}.{}", r(URLSAFE, 22, 30), r(URLSAFE, 43, 31))],
            &["SG.setApiKey(process.env.SENDGRID_KEY)"],
        ),
        case(
            "a Twilio key or account id",
            &[
                format!("SK{}", r(HEX, 32, 32)),
                format!("AC{}", r(HEX, 32, 33)),
            ],
            &["SKU 12345", "AC/DC", "SKffffffffffffffffffffffffffffffff"],
        ),
    ]
}

/// Authorization headers, URLs with a password, and Azure's secrets.
fn header_and_azure_cases() -> Vec<Case> {
    vec![
        case(
            "an authorization header",
            &[
                format!("curl -H 'Authorization: Bearer {}'", r(ALNUM, 40, 34)),
                "Authorization: Basic dXNlcjpzM2NyM3RQYXNzdzByZA==".into(),
            ],
            &[
                "Authorization: Bearer $TOKEN",
                "Authorization: Bearer <token>",
                "the Authorization header carries a bearer token",
            ],
        ),
        case(
            "a URL with a password",
            &[
                format!("postgres://app:{}@db.internal:5432/app", r(ALNUM, 16, 35)),
                "postgres://user:pass@host".into(),
                "mongodb+srv://admin:hunter2@cluster0.example.net".into(),
                "https://deploy:pa55w0rd-x@git.example.com/acme/app.git".into(),
                "redis://:s3cretpassw@cache.example.com:6379".into(),
                "sftp://backup:Vq9-xx-2@files.example.org/".into(),
                // a default password, but not on this machine
                "postgres://postgres:postgres@db.example.com/app".into(),
            ],
            &[
                "postgres://user@host/db",
                "postgres://user:${PGPASSWORD}@host/db",
                "mysql://root:<password>@localhost",
                "postgres://postgres:postgres@localhost/db",
                "amqp://guest:guest@127.0.0.1:5672/",
                "mysql://root:root@localhost:3306/app",
                "https://user@example.com/path",
            ],
        ),
        case(
            "an Azure shared access signature",
            &[format!(
                "https://acct.blob.core.windows.net/c/f.zip?sv=2022-11-02&ss=b&se=2026-12-31&sig={}%3D",
                r(B64, 43, 39)
            )],
            &["https://example.com/x?sig=short", "the sig= parameter"],
        ),
        case(
            "an Azure storage account key",
            &[format!(
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={}==;",
                r(B64, 86, 36)
            )],
            &["AccountKey=<key>", "AccountKey=${AZURE_KEY}"],
        ),
        case(
            "an Azure AD client secret",
            &[format!("Xy38Q~{}", r(ALNUM, 32, 37))],
            &["a Q~ in prose"],
        ),
    ]
}

/// Hosting, observability, developer tools' and mail services' tokens.
fn service_cases() -> Vec<Case> {
    vec![
        case(
            "a DigitalOcean token",
            &[format!("dop_v1_{}", r(HEX, 64, 38))],
            &["dop_v1_abc"],
        ),
        case(
            "a Shopify token",
            &[format!("shpat_{}", r(HEX, 32, 39))],
            &["shpat_abc"],
        ),
        case(
            "a Linear API key",
            &[format!("lin_api_{}", r(ALNUM, 40, 40))],
            &["lin_api_docs"],
        ),
        case(
            "a Postman API key",
            &[format!("PMAK-{}-{}", r(HEX, 24, 41), r(HEX, 34, 42))],
            &["PMAK-short"],
        ),
        case(
            "a Doppler token",
            &[format!("dp.pt.{}", r(ALNUM, 43, 43))],
            &["dp.pt.short"],
        ),
        case(
            "a Dynatrace token",
            &[format!("dt0c01.{}.{}", r(UPDIG, 24, 44), r(UPDIG, 64, 45))],
            &["dt0c01.ABC"],
        ),
        case(
            "a New Relic key",
            &[format!("NRAK-{}", r(UPDIG, 27, 46))],
            &["NRAK-docs"],
        ),
        case(
            "a HashiCorp Vault token",
            &[format!("hvs.{}", r(URLSAFE, 90, 47))],
            &["hvs.short", "hvs.read-the-policy-docs-first"],
        ),
        case(
            "a Terraform Cloud token",
            &[format!("{}.atlasv1.{}", r(ALNUM, 14, 48), r(ALNUM, 67, 49))],
            &["x.atlasv1.y"],
        ),
        case(
            "a Grafana token",
            &[format!("glsa_{}_{}", r(ALNUM, 32, 50), r(HEX, 8, 51))],
            &["glsa_short"],
        ),
        case(
            "a Databricks token",
            &[format!("dapi{}", r(HEX, 32, 52))],
            &["dapi docs"],
        ),
        case(
            "a Sentry token",
            &[format!("sntrys_eyJ{}", r(B64, 60, 53))],
            &["sntrys_"],
        ),
        case(
            "an Atlassian API token",
            &[format!("ATATT3{}", r(URLSAFE, 186, 54))],
            &["ATATT3xFf"],
        ),
        case(
            "a Mailchimp API key",
            &[format!("{}-us14", r(HEX, 32, 55))],
            &["region -us14"],
        ),
        case(
            "a Mailgun API key",
            &[format!("key-{}", r(HEX, 32, 56))],
            &["key-value-store-design"],
        ),
    ]
}

/// Square, Telegram, age, Heroku and PlanetScale keys.
fn more_service_cases() -> Vec<Case> {
    vec![
        case(
            "a Square token",
            &[format!("sq0atp-{}", r(URLSAFE, 22, 57))],
            &["sq0atp-x"],
        ),
        case(
            "a Telegram bot token",
            &[format!("718293645:AA{}", r(URLSAFE, 33, 58))],
            &["123456789:AAx"],
        ),
        case(
            "an age secret key",
            &[format!("AGE-SECRET-KEY-1{}", r(BECH32, 58, 59))],
            &["AGE-SECRET-KEY-1SHORT"],
        ),
        case(
            "a Heroku API key",
            &[format!("HRKU-AA{}", r(URLSAFE, 58, 60))],
            &["HRKU-AAshort"],
        ),
        case(
            "a PlanetScale token",
            &[format!("pscale_tkn_{}", r(ALNUM, 43, 61))],
            &["pscale_tkn_x"],
        ),
    ]
}

/// Package registry, mail, payment and cloud tokens, JSON web tokens and assigned secrets.
fn registry_and_token_cases() -> Vec<Case> {
    vec![
        case(
            "a package registry token",
            &[
                format!("pul-{}", r(HEX, 40, 62)),
                format!("rubygems_{}", r(HEX, 48, 63)),
            ],
            &["rubygems_org", "pul-request"],
        ),
        case(
            "a Sendinblue API key",
            &[format!("xkeysib-{}-{}", r(HEX, 64, 64), r(ALNUM, 16, 65))],
            &["xkeysib-x"],
        ),
        case(
            "a payment API key",
            &[format!("shippo_live_{}", r(HEX, 40, 66))],
            &["shippo_live_docs"],
        ),
        case(
            "an Alibaba Cloud access key id",
            &[format!("LTAI{}", r(ALNUM, 20, 67))],
            &["LTAIABCDEFGHIJKLMNOPQRST"],
        ),
        case(
            "a service API token",
            &[format!("tfp_{}", r(ALNUM, 59, 68))],
            &["tfp_x"],
        ),
        case(
            "an OpenShift token",
            &[format!("sha256~{}", r(URLSAFE, 43, 69))],
            &["image@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"],
        ),
        case(
            "a JSON web token",
            &[format!(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.{}",
                r(URLSAFE, 43, 70)
            )],
            &["eyJhbGciOiJIUzI1NiJ9 is a header"],
        ),
        case(
            "a secret assigned in the text",
            &[
                format!("password={}", r(ALNUM, 20, 71)),
                format!("token: {}", r(ALNUM, 24, 72)),
                format!("secret = \"{}\"", r(ALNUM, 32, 73)),
                format!("api_key={}", r(HEX, 32, 74)),
                format!("export DEPLOY_TOKEN='{}'", r(ALNUM, 30, 75)),
                format!("{{\"client_secret\": \"{}\"}}", r(URLSAFE, 40, 76)),
            ],
            &[
                "password=<your-token>",
                "token: xxx",
                "secret = \"${TOKEN}\"",
                "api_key=changeme",
                "password = config.password",
                "token: String",
                "api_key=os.environ[\"API_KEY\"]",
                "secret_sauce: the-real-recipe-v2",
                "token_file=/home/me/.config/gh/hosts2.yml",
                "password: correcthorsebatterystaple",
                "pub token_stream: __IncompleteArrayField<__u8>,",
                "credentials: InMemoryCredentialStore,",
                "let token: cpuid_aes_sha::InitToken = cpuid_aes_sha::init();",
                "pub(super) const DOT11_WPS_PASSWORD_ID_DEFAULT: DOT11_WPS_DEVICE_PASSWORD_ID = 0;",
                "badge.svg?token=P0YeuKXJyp&logo=codecov",
                "self, private_key: ed25519.Ed25519PrivateKey, f_priv: _FragList",
                "\"access_token\": \"m2m-access-token-12345\"",
                "oauth_token_secret=secret%3Dpassword&oauth_token=lock%26key",
            ],
        ),
    ]
}
