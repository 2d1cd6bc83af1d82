/// Words that announce a one-time code, that make a nearby number something
/// else, and that join a code to a keyword standing after it, by language.
/// Matched case-insensitively on folded text (`CodeDetector.fold`): full-width
/// and native digits are ASCII, final sigma is σ.
///
/// The lists are the vocabulary of sign-in and confirmation mail in each
/// language (what banks, shops, mail providers and authorities write), not
/// phrases taken from particular messages: a keyword is a term for "code",
/// "PIN" or "one-time password", qualified or not.
enum CodeKeywords {
    /// Keywords by language (ISO 639-1).
    static let byLanguage: [String: [String]] = [
        "en": [
            "verification code", "verification pin", "security code", "one-time code", "one time code", "one-time passcode",
            "one-time password",
            "one time password", "one-time pin", "otp", "passcode", "login code", "log-in code", "sign-in code", "signin code",
            "confirmation code",
            "authentication code", "auth code", "access code", "your code", "code is", "code:", "pin code", "pin is", "pin:",
            "temporary pin", "your pin",
            "2fa code", "two-factor code", "2-step verification code", "verify with", "this code", "the code", "following code", "code",
        ],
        "de": [
            "code",
            "bestätigungscode", "sicherheitscode", "verifizierungscode", "verifikationscode", "code lautet", "einmalpasswort",
            "einmalcode",
            "einmal-code", "anmeldecode", "ihr code", "dein code", "zugangscode", "freigabecode", "tan", "mtan", "smstan",
        ],
        "fr": [
            "code", "le code",
            "code de vérification", "code de confirmation", "code de sécurité", "votre code", "ton code", "code d'accès",
            "code à usage unique",
            "code d'authentification", "code de connexion", "mot de passe à usage unique", "code temporaire",
        ],
        "es": [
            "token de seguridad", "tu token",
            "código", "el código",
            "código de verificación", "código de seguridad", "tu código", "su código", "código de acceso", "código de confirmación",
            "código de un solo uso", "clave de un solo uso", "código de inicio de sesión", "contraseña de un solo uso", "código temporal",
            "clave dinámica",
        ],
        "pt": [
            "token de acesso", "seu token", "token:",
            "código", "o código", "informe o código",
            "código de verificação", "código de segurança", "seu código", "o teu código", "código de acesso", "código de confirmação",
            "código de autenticação", "código de uso único", "senha de uso único", "código temporário", "código de login",
        ],
        "it": [
            "codice", "il codice", "codice di verifica è",
            "codice di verifica", "codice di sicurezza", "codice di conferma", "codice di accesso", "codice di autenticazione",
            "il tuo codice",
            "il suo codice", "codice monouso", "password monouso", "codice otp", "codice temporaneo", "codice:",
        ],
        "nl": [
            "code",
            "verificatiecode", "beveiligingscode", "bevestigingscode", "inlogcode", "toegangscode", "eenmalige code", "je code", "uw code",
            "jouw code", "authenticatiecode", "eenmalig wachtwoord",
        ],
        "pl": [
            "kod", "kodu", "kodem",
            "kod weryfikacyjny", "kod bezpieczeństwa", "kod potwierdzający", "kod potwierdzenia", "kod dostępu", "twój kod",
            "kod jednorazowy",
            "jednorazowy kod", "hasło jednorazowe", "kod logowania", "kod sms", "kod autoryzacyjny", "kod:", "kod to",
        ],
        "tr": [
            "kod", "kodu", "şifre",
            "doğrulama kodu", "doğrulama kodunuz", "güvenlik kodu", "güvenlik kodunuz", "onay kodu", "onay kodunuz",
            "tek kullanımlık şifre",
            "tek kullanımlık kod", "giriş kodu", "giriş kodunuz", "kodunuz", "şifreniz",
        ],
        "sv": [
            "kod", "koden",
            "verifieringskod", "säkerhetskod", "bekräftelsekod", "engångskod", "inloggningskod", "din kod", "koden är", "engångslösenord",
            "verifikationskod", "kod:",
        ],
        "da": [
            "kode", "koden","bekræftelseskode", "engangskode", "sikkerhedskode", "din kode", "koden er", "verifikationskode",
            "adgangskode til engangsbrug"],
        "no": [
            "kode", "koden","verifiseringskode", "bekreftelseskode", "engangskode", "sikkerhetskode", "din kode", "koden er",
            "påloggingskode"],
        "fi": [
            "koodi", "koodin","vahvistuskoodi", "turvakoodi", "kertakäyttöinen koodi", "kertakäyttökoodi", "koodisi", "koodi on",
            "kirjautumiskoodi", "varmennuskoodi"],
        "cs": [
            "kód", "kódu", "kódem",
            "ověřovací kód", "bezpečnostní kód", "potvrzovací kód", "přihlašovací kód", "jednorázový kód", "váš kód", "kód:",
            "jednorázové heslo",
            "autorizační kód", "kód pro přihlášení", "kód je",
        ],
        "ro": [
            "cod", "codul",
            "cod de verificare", "codul de verificare", "cod de securitate", "codul de securitate", "cod de confirmare",
            "codul de confirmare",
            "codul tău", "codul tau", "codul dvs", "codul dumneavoastră", "parolă unică", "parola unică", "cod de acces", "codul de acces",
            "cod unic",
        ],
        "el": [
            "κωδικό", "κωδικός μίας χρήσης", "κωδικό μίας χρήσης",
            "κωδικός επαλήθευσης", "κωδικό επαλήθευσης", "κωδικός επιβεβαίωσης", "κωδικό επιβεβαίωσης", "κωδικός ασφαλείας",
            "κωδικό ασφαλείας",
            "κωδικός μιας χρήσης", "κωδικό μιας χρήσης", "ο κωδικός σας", "τον κωδικό", "κωδικός:", "κωδικός πρόσβασης μιας χρήσης",
        ],
        "he": [
            "קוד", "הקוד","קוד אימות", "קוד האימות", "קוד חד פעמי", "קוד חד-פעמי", "קוד אבטחה", "הקוד שלך", "סיסמה חד פעמית", "קוד כניסה",
            "קוד הכניסה", "קוד:"],
        "ar": [
            "رمز", "الرمز", "كود", "الكود",
            "رمز التحقق", "رمز التأكيد", "رمز الأمان", "رمز الدخول", "كلمة المرور لمرة واحدة", "الرمز الخاص بك", "رمزك", "كود التفعيل",
            "رمز التفعيل", "كود التحقق", "رمز المصادقة", "رمز:",
        ],
        "hi": [
            "कोड", "ओटीपी","सत्यापन कोड", "ओटीपी", "वन टाइम पासवर्ड", "आपका कोड", "पुष्टिकरण कोड", "सुरक्षा कोड", "लॉगिन कोड", "कोड:",
            "कोड है"],
        "id": [
            "kode",
            "kode verifikasi", "kode keamanan", "kode konfirmasi", "kode otp", "kode akses", "kode anda", "kode kamu", "kode masuk",
            "kata sandi sekali pakai", "kode rahasia", "kode:",
        ],
        "vi": [
            "mã","mã xác minh", "mã xác thực", "mã xác nhận", "mã otp", "mã bảo mật", "mã của bạn", "mã đăng nhập", "mật khẩu một lần",
            "mã:", "mã là"],
        "th": [
            "รหัส","รหัสยืนยัน", "รหัส otp", "รหัสotp", "รหัสผ่านครั้งเดียว", "รหัสความปลอดภัย", "รหัสเข้าสู่ระบบ", "รหัสของคุณ",
            "รหัสคือ", "รหัสยืนยันตัวตน"],
        "uk": [
            "код", "коду", "кодом","код підтвердження", "код перевірки", "перевірочний код", "ваш код", "одноразовий пароль",
            "код для входу", "код безпеки", "код:"],
        "ru": [
            "код", "кода", "кодом","код подтверждения", "код проверки", "проверочный код", "ваш код", "одноразовый пароль",
            "код для входа", "код безопасности", "код:"],
        "zh-Hans": ["验证码", "校验码", "动态码", "动态密码", "确认码", "安全码", "登录码"],
        "zh-Hant": ["驗證碼", "認證碼", "安全碼", "確認碼", "動態密碼", "登入碼"],
        "ja": ["認証コード", "確認コード", "ワンタイムパスワード", "認証番号", "確認番号", "セキュリティコード", "パスコード", "確認用コード", "ログインコード"],
        "ko": ["인증번호", "인증 번호", "인증 코드", "인증코드", "보안 코드", "확인 코드", "일회용 비밀번호", "승인번호", "로그인 코드"],
    ]

    /// Keywords that end compound words ("Freischaltcode", "engångskod", "vahvistuskoodi"): no word start needed.
    static let compoundTails: Set<String> = ["code", "kode", "kod", "koden", "kode", "koodi", "koodin"]

    /// Languages that attach articles and prepositions to the word (ה־, ו־, ال, ب…): keywords need no word start.
    static let prefixingLanguages: Set<String> = ["he", "ar"]

    /// Languages that attach suffixes to the word ("kodunu", "koodin"): keywords need no word end.
    static let suffixingLanguages: Set<String> = ["tr", "fi"]

    /// Every keyword, longest first (a qualified keyword is reported over its generic tail).
    static let all: [String] = Array(Set(byLanguage.values.joined())).sorted { ($0.count, $0) > ($1.count, $1) }

    /// Verbs that put a code right after them ("Use 739201 to sign in", "Enter 4821"); they count only in a message
    /// that also speaks of a code, a sign-in or a confirmation somewhere (`authenticationContext`).
    static let verbs = [
        "use", "enter", "type", "input", "verwende", "verwenden sie", "gib", "geben sie", "utilisez", "utilise", "entrez", "saisissez",
        "saisis",
        "usa", "use o", "introduce", "introduzca", "ingresa", "ingrese", "digite", "insira", "inserisci", "utilizza", "digita", "gebruik",
        "voer",
        "użyj", "wpisz", "wprowadź", "kullanın", "girin", "använd", "ange", "brug", "indtast", "bruk", "skriv inn", "käytä", "syötä",
        "zadejte",
        "použijte", "folosiți", "introduceți", "χρησιμοποιήστε", "εισάγετε", "הזן", "הזינו", "השתמש", "أدخل", "استخدم", "दर्ज करें",
        "masukkan",
        "gunakan", "nhập", "sử dụng", "skriv in", "introdu", "πληκτρολογήστε", "πληκτρολογήστε τον", "ketik", "gõ", "กรอก", "ใส่",
        "введіть", "використовуйте", "введите", "используйте",
    ]

    /// Verbs that follow their code ("1006 を入力", "4857을 입력", "854828 का उपयोग करें").
    static let verbsAfter = ["を入力", "をご入력", "を入力して", "을 입력", "를 입력", "을(를) 입력", "을(를)입력", "का उपयोग करें", "दर्ज करें"]

    /// Verbs that precede their code without a space in unspaced scripts ("请输入1617").
    static let verbsUnspaced = ["输入", "輸入", "入力", "กรอก", "ใส่"]

    /// Words of sign-in and confirmation that make the verbs count.
    static let authenticationContext = [
        "conferm", "bevestig", "potwierdz", "onay", "bekräft", "bekræft", "bekreft", "vahvist", "potvrd", "confirma", "επιβεβαιω",
        "επιβεβαίω",
        "אימות", "לאמת", "تأكيد", "التحقق", "पुष्टि", "सत्यापित", "verifikasi", "konfirmasi", "xác nhận", "xác minh", "ยืนยัน", "підтверд",
        "подтвер", "確認", "認証", "验证", "驗證", "인증", "확인", "doğrula", "ověř", "weryfik", "potvrz", "potvrď", "επιβεβαι", "אישור",
        "לאשר", "onayla",
        "sign in", "sign-in", "log in", "log-in", "login", "verify", "confirm", "authenticat", "password", "anmeld", "bestätig",
        "connexion",
        "confirm", "iniciar sesión", "verific", "accedi", "accesso", "inloggen", "zaloguj", "logowan", "giriş", "logga in", "přihlá",
        "autentific",
        "σύνδεση", "התחבר", "تسجيل الدخول", "लॉगिन", "masuk", "đăng nhập", "เข้าสู่ระบบ", "вхід", "вход", "ログイン", "登录", "로그인",
    ]

    /// Words that join a code to a keyword after it: "739201 is your code", "640017 è il tuo codice".
    static let links = [
        " is ", " ist ", " est ", " es ", " è ", " é ", " jest ", " je ", " är ", " er ", " on ", " adalah ", " là ", " este ", " είναι ",
        " הוא ",
        " هو ", " это ", " є ", " to ", " als ", " como ", " come ", " sebagai ", "は", "이 ", "가 ", "是", "为", "為",
    ]

    /// Words that make letter codes booking references (PNRs), wherever they stand in the message.
    static let bookingContext = [
        "booking", "reservation", "flight", "itinerary", "buchung", "flug", "réservation", "vol ", "reserva", "vuelo", "voo ",
        "prenotazione",
        "volo", "boeking", "reservering", "vlucht", "rezerwacja", "lot ", "rezervasyon", "uçuş", "bokning", "flyg", "rezervace", "let ",
        "rezervare", "zbor", "κράτηση", "πτήση", "הזמנה", "טיסה", "الحجز", "رحلة", "बुकिंग", "उड़ान", "pemesanan", "penerbangan",
        "đặt chỗ",
        "chuyến bay", "การจอง", "เที่ยวบิน", "бронюван", "бронирован", "рейс", "予約", "航空券", "预订", "航班", "예약", "항공",
    ]

    /// Words that make a nearby number something else: an order, a price, a phone number, a postal code…
    /// Words of up to four letters count only as whole words.
    static let traps = [
        // orders, invoices, bookings, shipments, tickets, references
        "order", "invoice", "tracking", "shipment", "parcel", "reference", "ref.", "ref:", "ticket", "booking", "reservation", "flight",
        "bestellung", "rechnung", "sendung", "buchung", "auftrag", "commande", "facture", "réservation", "colis", "pedido", "factura",
        "reserva",
        "encomenda", "fatura", "ordine", "fattura", "prenotazione", "spedizione", "bestelling", "factuur", "reservering", "zending",
        "zamówieni",
        "faktur", "rezerwacj", "przesyłk", "sipariş", "rezervasyon", "kargo", "beställning", "bokning", "bestilling", "tilaus", "lasku",
        "objednáv",
        "rezervac", "zásilk", "comand", "rezervare", "colet", "παραγγελ", "τιμολόγ", "κράτησ", "הזמנה", "חשבונית", "משלוח", "رقم الطلب",
        "فاتورة", "الحجز", "الشحنة",
        "शिपमेंट", "ऑर्डर", "चालान", "pesanan", "tagihan", "resi", "đơn hàng", "hóa đơn", "vận đơn", "คำสั่งซื้อ", "ใบแจ้งหนี้", "พัสดุ",
        "замовлен",
        "рахун", "заказ", "счёт", "счет", "订单", "運單", "訂單", "发票", "快递", "注文番号", "注文", "伝票", "주문번호", "송장", "예약",
        // phone numbers
        "phone", "tel", "fax", "call", "telefon", "téléphone", "teléfono", "telefone", "telefono", "телефон", "телефону", "τηλ", "טלפון",
        "هاتف", "फ़ोन", "फोन", "điện thoại", "tổng đài", "hotline", "โทร", "电话", "電話", "전화",
        // postal codes and addresses
        "zip", "postal", "postcode", "post code", "plz", "postleitzahl", "code postal", "código postal", "cap", "c.a.p", "postnummer",
        "kod pocztowy", "posta kodu", "postbus", "postfach", "p.o. box", "po box", "boîte postale", "apartado", "caixa postal",
        "casella postale", "psč", "cod poștal", "ταχ. κώδ", "ταχυδρομικός κώδικας", "מיקוד", "الرمز البريدي", "पिन कोड", "kode pos",
        "mã bưu", "รหัสไปรษณีย์", "поштовий індекс", "индекс", "邮编", "郵便番号", "우편번호",
        // accounts, cards, banking
        "account number", "account no", "customer number", "customer no", "customer id", "member number", "member id", "membership",
        "kundennummer", "numéro client", "número de cliente", "numero cliente", "klantnummer", "numer klienta", "müşteri no", "kundnummer",
        "iban", "bic", "swift", "sort code", "routing", "ending in", "ends in", "ending with", "last four", "last 4", "endet auf",
        "endend auf",
        "se terminant par", "terminant par", "terminada en", "terminado en", "final", "che termina", "eindigend op", "kończąca się",
        "biten",
        "končící", "case number", "case no", "case id", "case #", "codice cliente", "code client", "código de cliente", "código cliente",
        "kundencode", "customer code", "client code", "klantcode", "kod klienta", "codice fiscale", "codice pod", "zipcode", "barcode",
        "promocode", "promo code", "gutscheincode", "rabattcode", "discount code", "coupon code", "штрихкод", "cep", "pincode",
        // promotions, versions, places
        "promo", "coupon", "voucher", "discount", "gutschein", "rabatt", "réduction", "descuento", "cupón", "cupom", "sconto", "korting",
        "rabat", "indirim", "kupon", "sleva", "reducere", "έκπτωσ", "הנחה", "خصم", "छूट", "diskon", "giảm giá", "ส่วนลด", "знижк", "скидк",
        "version", "build", "release", "room", "gate", "seat", "platform", "suite", "apt", "unit",
    ]

    /// The language tags the keywords cover.
    static var languages: [String] { byLanguage.keys.sorted() }
}
