/// Words that announce a one-time code, by language. Matched case-insensitively
/// on text whose full-width characters were folded to ASCII.
enum CodeKeywords {
    static let all: [String] = english + german + french + spanish + portuguese + russian + chineseSimplified + chineseTraditional + japanese + korean

    static let english = [
        "verification code", "security code", "one-time code", "one time code", "one-time passcode", "one-time password", "one time password",
        "otp", "passcode", "login code", "log-in code", "sign-in code", "signin code", "confirmation code", "authentication code", "auth code",
        "access code", "your code", "code is", "code:", "pin code", "2fa code", "two-factor code", "verify with", "this code", "the code",
        "following code", "code",
    ]
    static let german = [
        "bestätigungscode", "sicherheitscode", "verifizierungscode", "verifikationscode", "code lautet", "einmalpasswort", "einmalcode",
        "anmeldecode", "ihr code", "dein code", "zugangscode",
    ]
    static let french = ["code de vérification", "code de confirmation", "code de sécurité", "votre code", "ton code", "code d'accès", "code à usage unique"]
    static let spanish = ["código de verificación", "código de seguridad", "tu código", "su código", "código de acceso", "código de confirmación"]
    static let portuguese = ["código de verificação", "código de segurança", "seu código", "código de acesso", "código de confirmação"]
    static let russian = ["код подтверждения", "код проверки", "проверочный код", "ваш код", "одноразовый пароль", "код для входа", "код:"]
    static let chineseSimplified = ["验证码", "校验码", "动态码", "动态密码", "确认码", "安全码"]
    static let chineseTraditional = ["驗證碼", "認證碼", "安全碼", "確認碼", "動態密碼"]
    static let japanese = ["認証コード", "確認コード", "ワンタイムパスワード", "認証番号", "確認番号", "セキュリティコード", "パスコード", "確認用コード"]
    static let korean = ["인증번호", "인증 번호", "인증 코드", "인증코드", "보안 코드", "확인 코드", "일회용 비밀번호", "승인번호"]

    /// Words that make a nearby number something else: an order, a price, a phone number…
    static let traps = [
        "order", "invoice", "tracking", "shipment", "reference", "ref.", "ticket", "account number", "customer number", "phone", "tel", "fax", "call",
        "telefon", "téléphone", "teléfono", "telefone", "телефон", "电话", "電話", "전화",
        "bestellung", "rechnung", "sendung", "commande", "facture", "pedido", "factura", "encomenda", "заказ", "订单", "運單", "訂單", "注文番号",
        "주문번호", "송장",
    ]
}
