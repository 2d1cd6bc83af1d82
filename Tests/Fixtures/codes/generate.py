#!/usr/bin/env python3
"""Writes the verification-code corpus: real-shaped messages (.eml) in ten
languages and their usual charsets and encodings, with the code a person
would type, or none. Deterministic (fixed seed); run it again after editing
the templates. Written for Mailwake: no third-party mail is copied."""
import base64, json, os, quopri, random
from email.utils import formataddr, format_datetime
from datetime import datetime, timezone, timedelta

random.seed(20261129)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "messages")

def code(n=6, alnum=False):
    if alnum:
        while True:
            s = "".join(random.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))
            if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
                return s
    return "".join(random.choice("0123456789") for _ in range(n))

def ew(text, charset):
    return "=?%s?B?%s?=" % (charset, base64.b64encode(text.encode(charset)).decode())

def message(subject, body, lang, charset="utf-8", html=False, sender=("Example", "no-reply@example.com"), enc="base64"):
    date = datetime(2025, 11, 29, 8, 0, tzinfo=timezone.utc) + timedelta(minutes=random.randint(0, 5000))
    ascii_subject = all(ord(c) < 128 for c in subject)
    h = []
    h.append("From: " + (formataddr(sender) if all(ord(c) < 128 for c in sender[0]) else "%s <%s>" % (ew(sender[0], charset), sender[1])))
    h.append("To: you@example.org")
    h.append("Subject: " + (subject if ascii_subject else ew(subject, charset)))
    h.append("Date: " + format_datetime(date))
    h.append("Message-ID: <%s@mailwake.test>" % code(12))
    h.append("MIME-Version: 1.0")
    payload = body.encode(charset)
    if html:
        ctype = 'text/html; charset="%s"' % charset
    else:
        ctype = 'text/plain; charset="%s"' % charset
    if enc == "qp":
        h.append("Content-Type: " + ctype)
        h.append("Content-Transfer-Encoding: quoted-printable")
        data = quopri.encodestring(payload).decode("ascii")
    elif enc == "7bit":
        h.append("Content-Type: " + ctype)
        h.append("Content-Transfer-Encoding: 7bit")
        data = payload.decode("ascii")
    else:
        h.append("Content-Type: " + ctype)
        h.append("Content-Transfer-Encoding: base64")
        data = base64.encodebytes(payload).decode("ascii")
    return ("\r\n".join(h) + "\r\n\r\n" + data.replace("\r\n", "\n").replace("\n", "\r\n")).encode("ascii")

def html_wrap(inner):
    return ('<!doctype html><html><head><meta charset="utf-8"><style>.code{font-size:28px;color:#1a2b3c;letter-spacing:4px}'
            '.foot{color:#888888}</style></head><body><table width="600"><tr><td>%s</td></tr>'
            '<tr><td class="foot">© 2025 Example Inc., 1 Main Street, Springfield. <a href="https://example.com/unsubscribe?u=88213">Unsubscribe</a></td></tr>'
            '</table></body></html>' % inner)

cases = []
def add(lang, subject, body, expected, **kw):
    cases.append((lang, subject, body, expected, kw))

for _ in range(3):
    # English: codes
    c = code(); add("en", "Your verification code", "Hi,\n\nYour verification code is %s. It expires in 10 minutes.\n\nIf you didn't request this, you can ignore this email.\n" % c, c)
    c = code(); add("en", "Sign in to Example", "Use this code to sign in: %s %s\nThe code expires at 14:30 UTC.\n" % (c[:3], c[3:]), c, enc="qp")
    c = code(); add("en", "%s is your Instagram code" % c, "Someone tried to log in to your account.\n", c)
    c = code(8); add("en", "Your one-time passcode", "Your one-time passcode is %s. Do not share it with anyone, including our staff.\n" % c, c)
    c = code(5); add("en", "Security alert", "We received a sign-in request from Chrome on Linux.\nYour security code: %s\n" % c, c)
    c = code(6, True); add("en", "Confirm your email", html_wrap('<p>Enter the confirmation code below to finish signing up:</p><p class="code">%s</p>' % c), c, html=True)
    c = code(4); add("en", "Your login code for Acme", "Login code: %s\n\nOrder #%s will ship on 2025-03-14.\n" % (c, code(5)), c)
    c = code(); add("en", "Your OTP", "OTP for your transaction of $250.00 is %s. Valid for 5 minutes.\n" % c, c)
    c = code(); add("en", "Two-factor authentication", html_wrap("<p>Your 2FA code is <b>%s</b></p><p>Requested at 09:41 from 203.0.113.7</p>" % c), c, html=True)
    c = code(4); add("en", "Microsoft account security code", "Please use the following security code for the Microsoft account te***@example.com.\n\nSecurity code: %s\n\nIf you don't recognize the account, you can click https://account.example.com/r/%s to remove your email address.\n" % (c, code(8)), c)
    c = code(6, True); add("en", "Reset your password", "Use this code to reset your password: %s\n" % c, c)
    c = code(); add("en", "Your Amazon OTP", "To verify your identity, use the following code: %s\n\nDon't share this code with anyone.\n" % c, c)
    # English: traps
    add("en", "Your order has shipped", "Your order %s has shipped. Tracking number 1Z999AA1%s.\n" % (code(7), code(10)), None)
    add("en", "Invoice 2024-0932", "Please find attached invoice %s for EUR 1,299.00 due 2024-11-30.\n" % code(8), None)
    add("en", "Meeting at 10:30", "See you on 12/05/2025 at 10:30 in room %s.\n" % code(4), None)
    add("en", "Summer sale", html_wrap("<p>Our new collection for 2025 is here! Save 20%% with code SUMMER at checkout.</p><p>Call +1 (415) 555-0199</p>"), None, html=True)
    add("en", "Your receipt", "Total: $%s.%s\nCard ending %s\nThanks for your purchase.\n" % (code(3), code(2), code(4)), None)
    add("en", "Password changed", "Your password was changed on 2025-01-04 at 08:15. If this wasn't you, reset it at https://example.com/reset/%s\n" % code(8), None)
    add("en", "Your statement is ready", "Your statement for account ending %s dated 31/01/2025 is ready.\n" % code(4), None)
    add("en", "Flight confirmation", "Confirmation number ABC123, flight %s departs 08:40 from gate 21.\n" % code(4), None)
    add("en", "Delivery update", "Your parcel %s is out for delivery between 13:00 and 15:00.\n" % code(12), None)
    add("en", "Welcome!", "Thanks for joining in 2025. Your member ID is %s.\n" % code(5), None)
    # German
    c = code(); add("de", "Ihr Bestätigungscode", "Hallo,\n\nIhr Bestätigungscode lautet %s.\nEr ist 15 Minuten gültig.\n" % c, c, charset="iso-8859-1", enc="qp", sender=("Bank Beispiel", "info@bank.example"))
    c = code(); add("de", "Anmeldung bei Beispiel", "Dein Code lautet: %s %s\n" % (c[:3], c[3:]), c)
    c = code(); add("de", "Sicherheitscode für Ihr Konto", html_wrap("<p>Sicherheitscode: <strong>%s</strong></p>" % c), c, html=True)
    add("de", "Ihre Bestellung %s" % code(7), "Vielen Dank für Ihre Bestellung %s vom 03.02.2025 über 49,90 €.\n" % code(7), None, charset="iso-8859-15", enc="qp")
    add("de", "Rechnung", "Ihre Rechnung %s über 1.249,00 EUR ist am 15.12.2025 fällig.\n" % code(6), None)
    # French
    c = code(); add("fr", "Votre code de vérification", "Bonjour,\n\nVotre code de vérification est %s.\n" % c, c, charset="iso-8859-1", enc="qp")
    c = code(4); add("fr", "Code de sécurité", "Utilisez ce code de sécurité : %s\n" % c, c)
    add("fr", "Votre commande", "Votre commande n° %s a été expédiée le 12/03/2025.\n" % code(8), None, charset="iso-8859-1", enc="qp")
    add("fr", "Facture disponible", "Votre facture %s d'un montant de 89,90 € est disponible.\n" % code(7), None)
    # Spanish
    c = code(); add("es", "Tu código de verificación", "Tu código de verificación es %s\n" % c, c)
    c = code(4); add("es", "Código de seguridad", html_wrap("<p>Su código de seguridad: %s</p>" % c), c, html=True)
    add("es", "Tu pedido", "Tu pedido %s llegará el 15/04/2025. Total 89,99 €\n" % code(7), None)
    # Portuguese
    c = code(); add("pt", "Seu código de verificação", "Seu código de verificação é %s\n" % c, c, charset="iso-8859-1", enc="qp")
    add("pt", "Encomenda enviada", "A sua encomenda %s foi enviada.\n" % code(6), None)
    # Russian
    c = code(); add("ru", "Код подтверждения", "Ваш код подтверждения: %s. Никому его не сообщайте.\n" % c, c, charset="koi8-r")
    c = code(4); add("ru", "Вход в аккаунт", "Код для входа — %s\n" % c, c, charset="windows-1251")
    add("ru", "Ваш заказ", "Ваш заказ N %s доставлен 12.03.2025. Сумма 1500 руб.\n" % code(6), None, charset="koi8-r")
    # Chinese simplified
    c = code(); add("zh-Hans", "【示例】验证码", "您的验证码是：%s，5分钟内有效。\n" % c, c, charset="gb2312", sender=("示例银行", "no-reply@bank.example"))
    c = code(); add("zh-Hans", "登录验证", "验证码 %s，请勿泄露给他人。\n" % "".join(chr(0xFF10 + int(d)) for d in c), c, charset="gbk")
    add("zh-Hans", "订单已发货", "您的订单 %s 已发货，金额 299元。\n" % code(13), None, charset="gbk")
    add("zh-Hans", "会议通知", "会议时间：2025年3月14日 14:00，地点：3楼。\n", None, charset="gb18030")
    # Chinese traditional
    c = code(); add("zh-Hant", "驗證碼通知", "您的驗證碼為 %s，請於10分鐘內輸入。\n" % c, c, charset="big5")
    add("zh-Hant", "訂單確認", "您的訂單 %s 已成立，金額 NT$1200。\n" % code(8), None, charset="big5")
    # Japanese
    c = code(); add("ja", "認証コードのお知らせ", "認証コード：%s\nこのコードは10分間有効です。\n" % c, c, charset="iso-2022-jp", enc="7bit")
    c = code(); add("ja", "【重要】確認コード", "確認コードは %s です。\n" % "".join(chr(0xFF10 + int(d)) for d in c), c, charset="shift_jis")
    add("ja", "ご注文ありがとうございます", "注文番号 249-%s のご注文を承りました。合計 3,980円。\n" % code(7), None, charset="iso-2022-jp", enc="7bit")
    add("ja", "お知らせ", "2025年4月1日よりサービス内容が変わります。\n", None, charset="shift_jis")
    # Korean
    c = code(); add("ko", "인증번호 안내", "[Web발신] 인증번호 [%s]를 입력해주세요.\n" % c, c, charset="euc-kr")
    c = code(4); add("ko", "보안 코드", "보안 코드: %s\n" % c, c)
    add("ko", "주문 완료", "주문번호 %s 결제금액 15,000원\n" % code(11), None, charset="euc-kr")

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    os.remove(os.path.join(OUT, f))
manifest = []
for i, (lang, subject, body, expected, kw) in enumerate(cases):
    name = "%03d-%s.eml" % (i + 1, lang)
    open(os.path.join(OUT, name), "wb").write(message(subject, body, lang, **kw))
    manifest.append({"file": name, "lang": lang, "expected": expected})
json.dump(manifest, open(os.path.join(HERE, "expected.json"), "w"), ensure_ascii=False, indent=1)
print(len(manifest), "messages")
