#!/usr/bin/env python3
"""Writes the "unseen" one-time-code corpus: real-shaped messages (.eml) in
24 languages, in their usual charsets and transfer encodings, each with the
code a person would type, or null for messages that hold only tempting
numbers (traps). Written blind to the detector: no detector source, test or
case list was read while authoring it. Deterministic (fixed seed), Python 3
standard library only. Paraphrased service wording; no real mail copied.

Entry format, per language: (spec, flags, sender, subject, body)
  spec   None (trap) or code shape: "6", "4", "8", "6s" (123 456),
         "6h" (123-456), "8s" (1234 5678), "A6" (K7Q2M9), "A8h" (K7Q2-M9XA)
  flags  space-separated: "h" HTML-only, "a" multipart/alternative,
         "cs=<charset>", "e=b64|qp|8bit|7bit", "st=table|header|div|cells"
  body   text; {c} is replaced by the code as displayed; in HTML mode
         lines become paragraphs and the code is emphasised.
"""
import base64, html, json, os, quopri, random, re, sys
from email.header import Header
from email.utils import format_datetime
from datetime import datetime, timezone, timedelta

RNG = random.Random(20261201)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "messages")

ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

def make_code(spec):
    alnum = spec.startswith("A")
    s = spec[1:] if alnum else spec
    n = int(re.match(r"\d+", s).group())
    sep = s[len(str(n)):]
    while True:
        if alnum:
            c = "".join(RNG.choice(ALNUM) for _ in range(n))
            if not (any(x.isdigit() for x in c) and any(x.isalpha() for x in c)):
                continue
        else:
            c = "".join(RNG.choice("0123456789") for _ in range(n))
            if len(set(c)) < 3:
                continue
        break
    h = n // 2
    if sep == "w":
        return "".join(chr(0xFF10 + int(x)) if x.isdigit() else x for x in c), c
    if sep == "i":
        return "".join(chr(0x0660 + int(x)) for x in c), c
    if sep == "s":
        shown = c[:h] + " " + c[h:]
    elif sep == "h":
        shown = c[:h] + "-" + c[h:]
    else:
        shown = c
    return shown, c

CSS = ("body{margin:0;padding:0;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif}"
       ".wrap{max-width:600px;margin:0 auto;background:#ffffff}"
       ".code{font-size:30px;font-weight:700;letter-spacing:6px;color:#1f2d3d}"
       ".muted{color:#8a94a6;font-size:12px}")

def html_body(text, shown, style, lang):
    paras = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        e = html.escape(line)
        if shown is not None and "{c}" in line:
            if style == "cells":
                cells = "".join('<td style="border:1px solid #d0d5dd;padding:8px 12px;font-size:26px">%s</td>' % html.escape(ch) for ch in shown if ch != " ")
                e = e.replace("{c}", '</p><table role="presentation" cellspacing="6"><tr>%s</tr></table><p>' % cells)
            else:
                e = e.replace("{c}", '<span class="code">%s</span>' % html.escape(shown))
        paras.append("<p>%s</p>" % e)
    inner = "\n".join(paras)
    dir_attr = ' dir="rtl"' if lang in ("he", "ar") else ""
    foot = ('<p class="muted">&copy; 2025 Example Group &middot; <a href="https://example.com/preferences?u=58213&amp;l=%s">Preferences</a>'
            ' &middot; <a href="https://example.com/privacy">Privacy</a></p>' % lang)
    head = ('<!DOCTYPE html>\n<html lang="%s"%s><head><meta http-equiv="Content-Type" content="text/html; charset=__CS__">'
            '<meta name="viewport" content="width=device-width, initial-scale=1"><style>%s</style></head>\n<body>\n' % (lang, dir_attr, CSS))
    if style == "header":
        mid = ('<header style="background:#0b5cff;color:#fff;padding:16px 24px"><img src="https://cdn.example.com/logo-2x.png" width="120" height="32" alt="Logo"></header>\n'
               '<div class="wrap" style="padding:24px">\n%s\n</div>\n<footer style="padding:16px 24px">%s</footer>\n' % (inner, foot))
    elif style == "div":
        mid = ('<div class="wrap"><div style="padding:32px 24px;border-top:4px solid #00a86b">\n%s\n</div>\n<div style="padding:12px 24px">%s</div></div>\n' % (inner, foot))
    else:
        mid = ('<table role="presentation" width="100%%" cellpadding="0" cellspacing="0" bgcolor="#f4f5f7"><tr><td align="center">\n'
               '<table class="wrap" width="600" cellpadding="24" cellspacing="0"><tr><td style="font-size:16px;line-height:24px;color:#333333">\n%s\n</td></tr>\n'
               '<tr><td>%s</td></tr></table>\n</td></tr></table>\n' % (inner, foot))
    return head + mid + "</body></html>\n"

def encode_part(text, ctype, charset, enc):
    payload = text.replace("\r\n", "\n").replace("\n", "\r\n").encode(charset)
    hdr = 'Content-Type: %s; charset="%s"\r\n' % (ctype, charset)
    if enc == "qp":
        data = quopri.encodestring(payload).decode("ascii").replace("\r\n", "\n").replace("\n", "\r\n")
        return (hdr + "Content-Transfer-Encoding: quoted-printable\r\n\r\n").encode() + data.encode("ascii")
    if enc in ("8bit", "7bit"):
        if enc == "7bit":
            payload.decode("ascii")
        return (hdr + "Content-Transfer-Encoding: %s\r\n\r\n" % enc).encode() + payload
    data = base64.encodebytes(payload).decode("ascii").replace("\n", "\r\n")
    return (hdr + "Content-Transfer-Encoding: base64\r\n\r\n").encode() + data.encode("ascii")

def hdr_text(s, charset):
    if all(ord(ch) < 128 for ch in s):
        return s
    return Header(s, charset, header_name="Subject").encode(linesep="\r\n")

def slug(name):
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s or "mail"

def build(lang, idx, spec, flags, sender, subject, body):
    opts = {}
    for tok in flags.split():
        if "=" in tok:
            k, v = tok.split("=", 1); opts[k] = v
        else:
            opts[tok] = True
    charset = opts.get("cs", "utf-8")
    if charset.lower() == "iso-2022-jp":
        enc = "7bit"
    else:
        enc = opts.get("e") or RNG.choice(["b64", "b64", "qp", "qp", "8bit"])
    style = opts.get("st") or RNG.choice(["table", "table", "header", "div"])
    shown, expected = make_code(spec) if spec else (None, None)
    subj = subject.replace("{c}", shown) if shown else subject
    text = body.replace("{c}", shown) if shown else body
    date = datetime(2025, 10, 6, 7, 0, tzinfo=timezone.utc) + timedelta(minutes=RNG.randint(0, 80000))
    if isinstance(sender, tuple):
        sname, saddr = sender
    else:
        sname = sender
        saddr = "no-reply@%s.example.com" % (slug(sender) if slug(sender) != "mail" else "notify-%s-%d" % (lang, idx % 5))
    h = ["From: %s <%s>" % (hdr_text(sname, charset) if not all(ord(ch) < 128 for ch in sname) else '"%s"' % sname, saddr),
         "To: reader@example.org",
         "Subject: " + hdr_text(subj, charset),
         "Date: " + format_datetime(date),
         "Message-ID: <%08x.%d@mail.example.net>" % (RNG.getrandbits(32), idx),
         "MIME-Version: 1.0"]
    head = ("\r\n".join(h) + "\r\n").encode("ascii")
    if opts.get("h"):
        page = html_body(body, shown, style, lang).replace("__CS__", charset)
        part = encode_part(page, "text/html", charset, enc)
        return head + part, expected
    if opts.get("a"):
        page = html_body(body, shown, style, lang).replace("__CS__", charset)
        b = "=_mw_%08x" % RNG.getrandbits(32)
        out = head + ('Content-Type: multipart/alternative; boundary="%s"\r\n\r\n' % b).encode()
        out += ("--%s\r\n" % b).encode() + encode_part(text, "text/plain", charset, enc) + b"\r\n"
        out += ("--%s\r\n" % b).encode() + encode_part(page, "text/html", charset, enc) + b"\r\n"
        out += ("--%s--\r\n" % b).encode()
        return out, expected
    return head + encode_part(text, "text/plain", charset, enc), expected

L = {}  # lang -> list of entries

L["en"] = [
 ("6", "", "Northwind ID", "{c} is your Northwind verification code",
  "Hi Sam,\n\nEnter this code to finish signing in on a new device (Firefox on Windows, near San Francisco, CA 94107):\n\n{c}\n\nThe code expires in 10 minutes. If this wasn't you, change your password at https://id.northwind.example.com/security.\n\nNorthwind Inc., 500 Howard Street, Suite 300, San Francisco, CA 94105\n"),
 ("6s", "a st=table", "Lumen Bank", "Your Lumen Bank one-time passcode",
  "Your one-time passcode (OTP) for the payment of $1,249.00 to ACME HARDWARE, card ending in 4242, is:\n{c}\nNever share this passcode. Lumen Bank will never call you to ask for it.\nQuestions? Call 1-800-555-0142 (Mon-Fri, 8am-8pm ET).\n"),
 ("A6", "h st=header", "Parcelio", "Confirm your email address",
  "Welcome to Parcelio!\nTo confirm your email address, enter the following code in the app:\n{c}\nYour first order over $35 ships free. Use promo code WELCOME15 at checkout.\nParcelio, 1200 Market St, Philadelphia, PA 19107\n"),
 ("6", "", "Playforge", "Use {c} to sign in to Playforge",
  "Use the code in the subject line to sign in to your Playforge account.\n\nSeason 14 begins on March 3, 2026. Level up with 2,500 bonus XP this weekend.\n"),
 ("8", "", "Contoso Health Portal", "Your security code",
  "Hello,\n\nWe received a request to access your Contoso Health Portal account (member ID 100482736).\n\nYour security code is {c}\n\nFor your protection this code can only be used once and expires at 3:45 PM EST.\n\nAppointment reminder: Tue, Nov 18, 2025 at 9:30 AM, Room 214.\n"),
 ("4", "", "Rideo", "Rideo login code",
  "Enter {c} to confirm it's you.\nTrip receipts for October: 14 trips, $212.48 total.\n"),
 ("6h", "h st=div", "Fabrikam Cloud", "Two-step verification",
  "Someone is trying to sign in to your Fabrikam Cloud account from IP 198.51.100.23.\nYour 2-step verification code:\n{c}\nVersion 4.12 of the desktop app is now available.\n"),
 (None, "", "Parcelio", "Your order #1048823 has shipped",
  "Good news! Your order #1048823 is on its way.\n\nTracking number: 1Z 999 AA1 01 2345 6784\nEstimated delivery: Thursday, 11/20/2025 by 8:00 PM\nShip to: 742 Evergreen Terrace, Springfield, OR 97477\n\nOrder total: $87.16\n"),
 (None, "h st=table", "Lumen Bank", "Your statement is ready",
  "Your November statement for the account ending in 7781 is now available.\nNew balance: $2,381.09  Minimum payment due: $35.00 by 12/21/2025.\nNeed help? Call 1 (800) 555-0199.\n"),
 (None, "", "Shopwise", "48 hours only: 30% off everything",
  "Use code FLASH30 or WINTER2025 at checkout.\nOffer valid 11/28/2025 12:00 AM through 11/29/2025 11:59 PM PT. Min. spend $50. Limit 1 per customer.\nCustomer service: (415) 555-0123\n"),
 (None, "", "Skyways", "Booking confirmation ZK4T9P",
  "Thank you for booking with Skyways.\n\nConfirmation code: ZK4T9P\nFlight SW 2417, Seattle (SEA) to Denver (DEN)\nDeparts Dec 19, 2025 at 06:45, gate B12, seat 23C\nTicket number 5262104338812\nTotal charged: $318.40\n"),
 (None, "", "Northwind ID", "Your password was changed",
  "The password for your Northwind account was changed on November 12, 2025 at 14:02 UTC.\n\nIf you made this change, no further action is needed. If not, reset your password within 24 hours at https://id.northwind.example.com/reset (case 20251112-88341).\n"),
]

L["de"] = [
 ("6", "cs=iso-8859-15 e=qp", "Nordstern Bank", "Ihre TAN für die Überweisung",
  "Sehr geehrte Frau Becker,\n\nfür Ihre Überweisung über 1.234,56 € an DE89 3704 0044 0532 0130 00 lautet Ihre TAN:\n\n{c}\n\nDie TAN ist 5 Minuten gültig. Bitte prüfen Sie Empfänger und Betrag sorgfältig.\n\nMit freundlichen Grüßen\nIhre Nordstern Bank AG, Friedrichstraße 95, 10117 Berlin\n"),
 ("6", "", "Konto Beispiel", "Dein Bestätigungscode",
  "Hallo Jonas,\n\ngib diesen Code ein, um deine E-Mail-Adresse zu bestätigen:\n{c}\n\nDer Code läuft in 15 Minuten ab. Wenn du das nicht warst, kannst du diese E-Mail ignorieren.\n"),
 ("6s", "a st=header", "Stadtwerke Beispielstadt", "Ihr Sicherheitscode für das Kundenportal",
  "Guten Tag,\n\nSie haben sich im Kundenportal angemeldet (Kundennummer 4711-0815-22).\nIhr Sicherheitscode lautet:\n{c}\nZählerstand bitte bis 31.12.2025 melden. Service-Hotline 0800 123 45 67.\n"),
 ("8", "h st=table", "ELSTER-Beispielportal", "Aktivierung Ihres Benutzerkontos",
  "Sehr geehrte Nutzerin, sehr geehrter Nutzer,\nmit dem folgenden Freischaltcode schließen Sie die Registrierung ab:\n{c}\nIhr Aktenzeichen: 21/815/04711. Bitte bewahren Sie dieses Schreiben auf.\n"),
 ("6", "", "Spielwiese", "{c} ist dein Spielwiese-Code",
  "Nutze den Code aus dem Betreff, um dich anzumelden. Teile ihn mit niemandem.\n"),
 ("A8h", "", "Paketfix", "Einmalpasswort für Ihr Paketfix-Konto",
  "Ihr Einmalpasswort: {c}\nSendungsnummer 00340434161234567890, Zustellung am Mo., 17.11.2025 zwischen 10:00 und 14:00 Uhr an Hauptstr. 12, 80331 München.\n"),
 (None, "cs=iso-8859-15 e=qp", "Modehaus Beispiel", "Ihre Bestellung Nr. 300128877",
  "Vielen Dank für Ihre Bestellung vom 14.11.2025!\n\nBestellnummer: 300128877\nRechnungsbetrag: 149,95 € inkl. 19 % MwSt.\nLieferadresse: Lindenallee 5, PLZ 10115 Berlin\nRückfragen: 030 12345678\n"),
 (None, "", "Nordstern Bank", "Ihr Kontoauszug November 2025",
  "Ihr Kontoauszug Nr. 11/2025 steht im Postfach bereit.\nIBAN: DE02 1203 0000 0000 2020 51\nKontostand am 30.11.2025: 3.456,78 €\nKarte endet auf 9921.\n"),
 (None, "h st=div", "Reisen Beispiel", "Buchungsbestätigung 8842913",
  "Ihre Reise ist gebucht! Buchungsnummer 8842913.\nFlug LH 2024 ab München 07:15 am 22.12.2025, Rückflug LH 2025 am 05.01.2026.\nGesamtpreis: 1.298,00 €. Gutscheincode SKI2026 für Ihre nächste Buchung.\n"),
 (None, "", "Support Beispiel", "Ihre Anfrage #558120",
  "Wir haben Ihre Anfrage mit der Ticketnummer 558120 erhalten und melden uns innerhalb von 48 Stunden.\nVersion 4.12.3 behebt den Fehler bei der Synchronisierung.\n"),
]

L["fr"] = [
 ("6", "cs=iso-8859-15 e=qp", "Banque Exemple", "Votre code de sécurité",
  "Madame, Monsieur,\n\nPour valider votre paiement de 1 234,56 € chez MARCHAND EXEMPLE, saisissez le code de sécurité suivant :\n\n{c}\n\nCe code est valable 5 minutes. Ne le communiquez jamais, même à un conseiller.\n\nBanque Exemple - 12 rue de la Paix, 75002 Paris\n"),
 ("6", "", "Compte Exemple", "Code de vérification de votre compte",
  "Bonjour,\n\nVoici votre code de vérification : {c}\n\nSi vous n'êtes pas à l'origine de cette demande, ignorez cet e-mail.\n"),
 ("6s", "h st=table", "Impots-Exemple", "Votre code de connexion",
  "Bonjour,\nVous avez demandé à vous connecter à votre espace particulier (numéro fiscal 1234 567 890 123).\nVotre code de connexion à usage unique :\n{c}\nIl expire dans 15 minutes.\n"),
 ("4", "", "Livrexpress", "Confirmez votre numéro",
  "Saisissez {c} dans l'application pour confirmer votre numéro de téléphone 06 12 34 56 78.\n"),
 ("A6", "a st=div", "JeuNet", "Votre code JeuNet",
  "Salut !\nUtilise ce code pour activer la double authentification :\n{c}\nLa saison 7 démarre le 04/12/2025 à 18h00.\n"),
 ("6", "", "Mutuelle Exemple", "{c} est votre code de confirmation",
  "Entrez le code indiqué en objet pour accéder à vos remboursements. Adhérent n° 0048817263.\n"),
 (None, "cs=iso-8859-15 e=qp", "Boutique Exemple", "Confirmation de commande n° 2025-118432",
  "Merci pour votre commande du 14/11/2025.\n\nCommande n° 2025-118432\nMontant total : 89,90 € TTC\nLivraison : 8 avenue Victor Hugo, code postal 75001 Paris\nSuivi Colissimo : 6A12345678901\n"),
 (None, "", "Banque Exemple", "Votre relevé est disponible",
  "Votre relevé de compte de novembre 2025 est disponible dans votre espace client.\nSolde au 30/11/2025 : 2 345,67 €. Carte se terminant par 0412.\nService client : 09 69 32 00 00\n"),
 (None, "h st=header", "Voyages Exemple", "Votre réservation est confirmée",
  "Référence de réservation : QX7P2L\nVol AF 1234 Paris CDG - Lisbonne, le 20/12/2025 à 07h35, terminal 2F.\nHôtel : 3 nuits, 412,00 €.\nCode promo HIVER pour -10 % sur votre prochain séjour.\n"),
 (None, "", "SAV Exemple", "Dossier n° 774512 : réponse à votre demande",
  "Votre dossier n° 774512 a été traité le 02/12/2025. Le remboursement de 49,99 € sera effectué sous 5 à 7 jours ouvrés.\n"),
]

L["es"] = [
 ("6", "", "Banco Ejemplo", "Tu código de verificación",
  "Hola, María:\n\nTu código de verificación es {c}. Caduca en 10 minutos.\n\nNunca te pediremos este código por teléfono. Si no has sido tú, llama al 900 123 456.\n"),
 ("6", "cs=iso-8859-15 e=qp", "Tienda Ejemplo", "Código de seguridad para tu compra",
  "Para confirmar tu compra de 1.234,56 € con la tarjeta terminada en 4242, introduce este código de seguridad:\n\n{c}\n\nPedido n.º 4008812, entrega en C/ Mayor 15, 28013 Madrid.\n"),
 ("6h", "h st=header", "Cuenta Ejemplo", "Inicio de sesión: código de acceso",
  "Hemos detectado un inicio de sesión desde Chrome en Android (Ciudad de México, CP 06600).\nTu código de acceso es:\n{c}\nSi no fuiste tú, cambia tu contraseña.\n"),
 ("4", "", "Mensajero", "Confirma tu número",
  "Introduce {c} para confirmar tu número +34 612 345 678.\n"),
 ("8", "a st=table", "Sede Electrónica Ejemplo", "Clave de un solo uso",
  "Estimado/a ciudadano/a:\nSu clave de un solo uso para firmar el trámite con número de expediente 2025/001234 es:\n{c}\nPlazo de validez: 10 minutos. Fecha de la solicitud: 03/12/2025 11:42.\n"),
 ("6", "", "Juegos Ejemplo", "{c} es tu código de Juegos Ejemplo",
  "Usa el código del asunto para iniciar sesión. ¡La temporada 5 comienza el 12/12/2025!\n"),
 (None, "cs=iso-8859-15 e=qp", "Tienda Ejemplo", "Tu pedido 4008812 está en camino",
  "Tu pedido n.º 4008812 ha salido del almacén.\nNúmero de seguimiento: ES2025112800452\nEntrega estimada: 02/12/2025 entre las 9:00 y las 14:00.\nImporte: 59,95 €\n"),
 (None, "", "Banco Ejemplo", "Recibo de tu transferencia",
  "Has enviado 250,00 € a la cuenta ES91 2100 0418 4502 0005 1332 el 28/11/2025 a las 17:05.\nReferencia: 8830021457.\n"),
 (None, "h st=div", "Viajes Ejemplo", "Confirmación de reserva 7712093",
  "Reserva n.º 7712093 confirmada.\nVuelo IB 3166 Madrid - Lisboa, 19/12/2025, salida 08:10.\nTotal: 189,40 €. Usa el cupón NAVIDAD25 en tu próxima reserva.\n"),
 (None, "", "Soporte Ejemplo", "Tu caso #556102",
  "Hemos recibido tu consulta (caso #556102). Te responderemos en un plazo de 24 horas.\nHorario: lunes a viernes de 9:00 a 18:00, teléfono 91 123 45 67.\n"),
]

L["pt"] = [
 ("6", "", "Banco Exemplo", "Seu código de verificação",
  "Olá, João!\n\nSeu código de verificação é {c}. Ele expira em 5 minutos.\n\nNão compartilhe este código com ninguém. Central de atendimento: (11) 4004-1234.\n"),
 ("6", "cs=iso-8859-1 e=qp", "Loja Exemplo", "Código de confirmação da sua compra",
  "Use o código {c} para confirmar a compra de R$ 1.234,56 no cartão final 4242.\nPedido nº 78123450 - entrega no CEP 01310-100, São Paulo/SP.\n"),
 ("4", "h st=table", "Entregas Exemplo", "Seu código de acesso",
  "Oi! Digite o código abaixo no app para entrar:\n{c}\nSeu pedido chega hoje entre 14:00 e 16:00.\n"),
 ("A6", "", "Gov Exemplo", "Código de validação da conta",
  "Prezado(a) cidadão(ã),\n\nPara validar sua conta, informe o código: {c}\n\nCPF cadastrado: ***.456.789-**\n"),
 ("6", "", "Banco Exemplo PT", "Código de autorização",
  "Caro cliente,\n\nO código de autorização para a operação de 1.234,56 € é {c}.\nNão partilhe este código. Linha de apoio: 21 000 0000 (dias úteis, 8h-22h).\n"),
 ("6h", "a st=header", "Conta Exemplo", "O seu código de início de sessão",
  "Olá,\nUtilize o seguinte código para iniciar sessão na sua conta:\n{c}\nSe não foi o utilizador, altere a palavra-passe. Código postal registado: 1000-001 Lisboa.\n"),
 (None, "cs=iso-8859-1 e=qp", "Loja Exemplo", "Pedido 78123450 confirmado",
  "Recebemos seu pedido nº 78123450 em 28/11/2025.\nTotal: R$ 349,90 em 3x de R$ 116,63 sem juros.\nCódigo de rastreio: BR123456789BR\nCupom BLACKFRIDAY válido até 30/11.\n"),
 (None, "", "Operadora Exemplo", "Sua fatura chegou",
  "Sua fatura de novembro no valor de R$ 89,99 vence em 10/12/2025.\nLinha: (21) 98765-4321. Código de barras: 23793.38128 60007.827136 95000.063305 9 84410000008999\n"),
 (None, "", "Correios Exemplo PT", "A sua encomenda foi expedida",
  "A sua encomenda RR123456785PT foi expedida em 01/12/2025.\nMorada de entrega: Rua Augusta 100, 2.º Esq., 1100-053 Lisboa.\nValor à cobrança: 24,90 €\n"),
 (None, "h st=div", "Viagens Exemplo", "Reserva confirmada",
  "Localizador: KT5W2M\nVoo TP 1350 Lisboa - Porto, 15/12/2025 às 09:05.\nNúmero do bilhete: 0472104556781\n"),
]

L["it"] = [
 ("6", "", "Banca Esempio", "Il tuo codice di sicurezza",
  "Gentile cliente,\n\nil codice di sicurezza per autorizzare il bonifico di 1.234,56 € è {c}.\n\nIl codice scade tra 5 minuti. Non comunicarlo a nessuno.\n\nServizio clienti: 800 123 456\n"),
 ("6", "cs=iso-8859-15 e=qp", "Account Esempio", "Codice di verifica",
  "Ciao Giulia,\n\necco il tuo codice di verifica: {c}\n\nSe non hai richiesto tu il codice, ignora questa email.\n"),
 ("6s", "h st=table", "Poste Esempio", "Codice OTP per l'accesso",
  "Gentile utente,\nper completare l'accesso all'area riservata inserisci il codice OTP:\n{c}\nIl codice è valido per 10 minuti. Sede: Viale Europa 190, CAP 00144 Roma.\n"),
 ("4", "", "Consegne Esempio", "Conferma il tuo numero",
  "Inserisci {c} per confermare il numero 347 123 4567.\n"),
 ("A6", "a st=div", "Gioco Esempio", "Codice di accesso",
  "Ciao!\nUsa questo codice per accedere:\n{c}\nPromo di Natale: 20% di sconto con il codice NATALE20 fino al 24/12/2025.\n"),
 ("6", "", "Fisco Esempio", "{c} è il tuo codice di conferma",
  "Inserisci il codice riportato nell'oggetto per confermare la delega. Pratica n. 2025/778812.\n"),
 (None, "cs=iso-8859-15 e=qp", "Negozio Esempio", "Ordine n. 402211873 confermato",
  "Grazie per il tuo ordine del 27/11/2025.\nTotale: 129,90 € IVA inclusa.\nIndirizzo: Via del Corso 12, CAP 00186 Roma.\nNumero di tracciamento: 1LVX23456789\n"),
 (None, "", "Banca Esempio", "Estratto conto disponibile",
  "L'estratto conto di novembre 2025 è disponibile. IBAN IT60 X054 2811 1010 0000 0123 456.\nSaldo al 30/11/2025: 4.321,00 €. Carta che termina con 5521.\n"),
 (None, "h st=header", "Treni Esempio", "Il tuo biglietto",
  "Codice prenotazione (PNR): XK92TQ\nTreno FR 9519 Roma Termini 08:00 - Milano Centrale 11:10, carrozza 7, posto 12A.\nImporto: 59,90 €\n"),
 (None, "", "Assistenza Esempio", "Ticket 66120: aggiornamento",
  "La tua richiesta (ticket 66120) è stata presa in carico il 03/12/2025 alle 10:24. Tempo medio di risposta: 2 giorni.\n"),
]

L["nl"] = [
 ("6", "", "Voorbeeldbank", "Je verificatiecode",
  "Hoi Sanne,\n\nJe verificatiecode is {c}. Deze code is 10 minuten geldig.\n\nDeel deze code nooit met anderen. Klantenservice: 020 123 4567.\n"),
 ("6s", "h st=table", "MijnOverheid-Voorbeeld", "Uw sms-code per e-mail",
  "Beste gebruiker,\nU wilt inloggen. Vul de volgende code in om door te gaan:\n{c}\nDe code verloopt om 14:35. Postadres: Postbus 12345, 2500 AA Den Haag.\n"),
 ("6", "", "Winkel Voorbeeld", "{c} is je inlogcode",
  "Gebruik de code uit de onderwerpregel om in te loggen op je account.\nBestelling 2025-889123 wordt morgen tussen 17:00 en 19:00 bezorgd.\n"),
 ("4", "a st=div", "Bezorgapp", "Bevestig je e-mailadres",
  "Welkom!\nVoer {c} in om je e-mailadres te bevestigen.\nVan 1 t/m 7 december: 25% korting met code SINT25.\n"),
 ("8", "", "Energie Voorbeeld", "Beveiligingscode voor uw account",
  "Geachte klant,\n\nUw eenmalige beveiligingscode is: {c}\n\nKlantnummer: 300412877. Uw termijnbedrag wordt per 1 januari 2026 € 142,00.\n"),
 ("A6", "", "Spelplaats", "Je tweestapsverificatiecode",
  "Je code voor tweestapsverificatie: {c}\nNiet aangevraagd? Wijzig dan direct je wachtwoord.\n"),
 (None, "", "Winkel Voorbeeld", "Je bestelling 2025-889123 is onderweg",
  "Je pakket is onderweg! Track & trace: 3SXYZ1234567890\nBezorgadres: Kerkstraat 21, 1017 GC Amsterdam\nTotaal: € 1.234,56 (incl. btw)\n"),
 (None, "h st=header", "Voorbeeldbank", "Je rekeningoverzicht staat klaar",
  "Je overzicht van november 2025 staat klaar.\nRekening NL91 ABNA 0417 1643 00, saldo op 30-11-2025: € 2.345,67.\nPas eindigend op 8812.\n"),
 (None, "", "Treinreizen Voorbeeld", "Je e-ticket",
  "Reserveringsnummer: 44821907\nTrein IC 3541 Utrecht Centraal 08:16 - Eindhoven 09:05, spoor 18.\nPrijs: € 19,80\n"),
 (None, "", "Helpdesk Voorbeeld", "Melding 55821 is opgelost",
  "Je melding met nummer 55821 van 28-11-2025 is opgelost. Versie 4.12 van de app lost het probleem op.\n"),
]

L["pl"] = [
 ("6", "cs=iso-8859-2 e=qp", "Bank Przykład", "Kod autoryzacyjny",
  "Szanowny Kliencie,\n\nkod autoryzacyjny do przelewu na kwotę 1 234,56 zł na rachunek PL61 1090 1014 0000 0712 1981 2874:\n\n{c}\n\nKod jest ważny przez 5 minut. Nie przekazuj go nikomu.\n\nInfolinia: 800 123 456\n"),
 ("6", "", "Konto Przykład", "Twój kod weryfikacyjny",
  "Cześć Kasia,\n\nTwój kod weryfikacyjny to {c}.\n\nJeśli to nie Ty, zignoruj tę wiadomość.\n"),
 ("6s", "h st=table cs=iso-8859-2", "Sklep Przykład", "Kod do logowania",
  "Witaj!\nAby się zalogować, wpisz poniższy kod:\n{c}\nKod wygasa za 15 minut. Zamówienie nr 1204558 zostanie wysłane jutro.\n"),
 ("4", "", "Paczkomat Przykład", "Potwierdź numer telefonu",
  "Wpisz {c}, aby potwierdzić numer +48 601 234 567.\n"),
 ("8", "a st=header", "e-Urząd Przykład", "Jednorazowy kod dostępu",
  "Szanowna Pani, Szanowny Panie,\nTwój jednorazowy kod dostępu do profilu to:\n{c}\nSprawa nr WA-II.4012.15.2025. Adres: ul. Marszałkowska 10, 00-590 Warszawa.\n"),
 ("A6", "", "Gra Przykład", "{c} to Twój kod do gry",
  "Użyj kodu z tematu wiadomości, aby aktywować konto. Sezon 9 startuje 12.12.2025.\n"),
 (None, "cs=iso-8859-2 e=qp", "Sklep Przykład", "Zamówienie nr 1204558 zostało wysłane",
  "Dziękujemy za zakupy!\nNumer zamówienia: 1204558\nNumer przesyłki: 620012345678901234567890\nAdres: ul. Długa 5/12, 31-147 Kraków\nDo zapłaty: 249,99 zł\n"),
 (None, "", "Bank Przykład", "Wyciąg za listopad 2025",
  "Wyciąg nr 11/2025 jest dostępny w bankowości internetowej.\nSaldo na dzień 30.11.2025: 5 432,10 zł. Karta kończąca się na 3317.\n"),
 (None, "h st=div", "Kolej Przykład", "Twój bilet",
  "Bilet nr eIC12345678\nPociąg IC 5306 Warszawa Centralna 07:35 - Gdańsk Główny 10:24, wagon 9, miejsce 45.\nCena: 169,00 zł. Kod rabatowy ZIMA2025 na kolejny przejazd.\n"),
 (None, "", "Obsługa Klienta Przykład", "Zgłoszenie nr 884120",
  "Twoje zgłoszenie nr 884120 z dnia 01.12.2025 zostało przyjęte. Odpowiemy w ciągu 48 godzin.\n"),
]

L["tr"] = [
 ("6", "", "Örnek Bank", "Tek kullanımlık şifreniz",
  "Sayın Ayşe Yılmaz,\n\n1.234,56 ₺ tutarındaki işleminiz için tek kullanımlık şifreniz: {c}\n\nBu şifreyi kimseyle paylaşmayınız. Müşteri hizmetleri: 0850 222 0 000\n"),
 ("6", "cs=iso-8859-9 e=qp", "Örnek Hesap", "Doğrulama kodunuz",
  "Merhaba,\n\nDoğrulama kodunuz: {c}\n\nKod 3 dakika geçerlidir. Bu isteği siz yapmadıysanız bu e-postayı dikkate almayın.\n"),
 ("6s", "h st=table", "e-Devlet Örnek", "Giriş doğrulama kodu",
  "Sayın kullanıcı,\nSisteme giriş için doğrulama kodunuz:\n{c}\nT.C. kimlik numarası ile son giriş: 28.11.2025 21:14.\n"),
 ("4", "", "Yemek Örnek", "Telefon numaranızı onaylayın",
  "{c} kodunu girerek 0532 123 45 67 numaranızı onaylayın.\n"),
 ("A6", "a st=div", "Oyun Örnek", "Hesap güvenlik kodu",
  "Merhaba oyuncu!\nİki adımlı doğrulama kodun:\n{c}\nKış etkinliği 15.12.2025 tarihinde başlıyor. Kupon: KIS2025\n"),
 ("6", "", "Örnek Kargo", "{c} giriş kodunuzdur",
  "Konu satırındaki kodu kullanarak hesabınıza giriş yapabilirsiniz.\n"),
 (None, "cs=iso-8859-9 e=qp", "Örnek Mağaza", "Siparişiniz kargoya verildi",
  "Sipariş numaranız: 20251128-4471\nKargo takip no: 7312045589\nTeslimat adresi: Atatürk Cad. No: 45 D: 3, 34367 Şişli/İstanbul\nToplam: 2.499,90 TL\n"),
 (None, "", "Örnek Bank", "Hesap özetiniz hazır",
  "Kasım 2025 hesap özetiniz hazır. IBAN: TR33 0006 1005 1978 6457 8413 26\nSon ödeme tarihi: 10.12.2025, asgari ödeme: 750,00 ₺. Kartınızın son 4 hanesi: 6610\n"),
 (None, "h st=header", "Örnek Havayolu", "Rezervasyon onayı",
  "PNR: TK7Y4Q\nUçuş TK 2124 İstanbul (IST) - Ankara (ESB), 20.12.2025 saat 07:30, koltuk 14F.\nBilet no: 2352104778123\n"),
 (None, "", "Destek Örnek", "Talep numaranız 990134",
  "990134 numaralı talebiniz alınmıştır. 48 saat içinde dönüş yapılacaktır. Uygulama sürümü: 4.12\n"),
]

L["sv"] = [
 ("6", "", "Exempelbanken", "Din engångskod",
  "Hej Erik,\n\nDin engångskod är {c}. Koden är giltig i 10 minuter.\n\nDela aldrig koden med någon. Kundtjänst: 08-123 456 78\n"),
 ("6h", "h st=table cs=iso-8859-1", "Konto Exempel", "Verifieringskod",
  "Hej!\nAnge följande verifieringskod för att logga in:\n{c}\nInloggningen gjordes från Göteborg kl. 21.14.\n"),
 ("6", "", "Spel Exempel", "{c} är din inloggningskod",
  "Använd koden i ämnesraden för att logga in.\n"),
 ("4", "a st=div", "Matleverans Exempel", "Bekräfta din e-postadress",
  "Välkommen!\nSkriv in {c} i appen för att bekräfta din e-postadress.\nFri frakt över 499 kr med koden VINTER.\n"),
 ("8", "", "Myndighet Exempel", "Säkerhetskod för Mina sidor",
  "Hej,\n\nDin säkerhetskod för inloggning på Mina sidor: {c}\n\nÄrendenummer 2025-11-04312. Postadress: Box 1234, 111 22 Stockholm.\n"),
 ("A6", "", "Butik Exempel", "Kod för att återställa lösenord",
  "Någon har begärt att återställa lösenordet för ditt konto.\nDin kod: {c}\nOrder 5512009 levereras 3 december.\n"),
 (None, "cs=iso-8859-1 e=qp", "Butik Exempel", "Orderbekräftelse 5512009",
  "Tack för din beställning!\nOrdernummer: 5512009\nSumma: 1 234,50 kr inkl. moms\nLeveransadress: Storgatan 12, 114 55 Stockholm\nKollinummer: 00373500405123456789\n"),
 (None, "", "Exempelbanken", "Ditt kontoutdrag",
  "Ditt kontoutdrag för november 2025 finns nu i internetbanken.\nKonto 8327-9, 123 456 789-0. Saldo 30/11: 12 345,67 kr.\n"),
 (None, "h st=header", "Tåg Exempel", "Din biljett",
  "Bokningsnummer: RX4K92\nTåg 537 Stockholm C 06.10 - Göteborg C 09.05, vagn 3, plats 41.\nPris: 395 kr\n"),
 (None, "", "Support Exempel", "Ärende #71204 uppdaterat",
  "Ditt ärende #71204 har uppdaterats 2025-12-02 kl. 09:41. Version 4.12 finns nu att ladda ner.\n"),
]

L["cs"] = [
 ("6", "cs=iso-8859-2 e=qp", "Banka Příklad", "Autorizační kód",
  "Vážený kliente,\n\nautorizační kód pro platbu 1 234,56 Kč na účet 123456789/0800 je {c}.\n\nKód je platný 5 minut. Nikomu jej nesdělujte.\n\nInfolinka: 800 123 456\n"),
 ("6", "", "Účet Příklad", "Váš ověřovací kód",
  "Dobrý den,\n\nváš ověřovací kód je: {c}\n\nPokud jste o kód nežádali, tento e-mail ignorujte.\n"),
 ("6s", "h st=table cs=iso-8859-2", "Portál občana Příklad", "Jednorázový kód pro přihlášení",
  "Dobrý den,\npro dokončení přihlášení zadejte jednorázový kód:\n{c}\nČíslo jednací: MV-12345/2025. Adresa: Náměstí Hrdinů 3, 140 21 Praha 4.\n"),
 ("4", "", "Doručení Příklad", "Potvrďte telefonní číslo",
  "Zadejte {c} pro potvrzení čísla +420 601 234 567.\n"),
 ("A6", "a st=div", "Hra Příklad", "{c} je váš kód",
  "Ahoj!\nKód najdeš v předmětu zprávy i zde:\n{c}\nVánoční sleva 30 % s kódem VANOCE30.\n"),
 ("8", "", "Pojišťovna Příklad", "Bezpečnostní kód",
  "Váš bezpečnostní kód pro přístup do klientské zóny: {c}\nČíslo smlouvy: 8801234567.\n"),
 (None, "cs=iso-8859-2 e=qp", "E-shop Příklad", "Objednávka č. 2025118877 byla odeslána",
  "Děkujeme za objednávku!\nČíslo objednávky: 2025118877\nČíslo zásilky: DR1234567890C\nDoručovací adresa: Vinohradská 25, 120 00 Praha 2\nCelkem: 2 499 Kč\n"),
 (None, "", "Banka Příklad", "Výpis z účtu za listopad",
  "Výpis z účtu za listopad 2025 je k dispozici. IBAN CZ65 0800 0000 1920 0014 5399.\nZůstatek k 30.11.2025: 45 678,90 Kč. Karta končící 0707.\n"),
 (None, "h st=header", "Vlaky Příklad", "Vaše jízdenka",
  "Kód dokladu: 7741 2200 5512\nVlak EC 171 Praha hl.n. 10:46 - Brno hl.n. 13:24, vůz 256, místo 61.\nCena: 249 Kč\n"),
 (None, "", "Podpora Příklad", "Požadavek č. 33120",
  "Váš požadavek č. 33120 ze dne 29. 11. 2025 jsme vyřešili.\n"),
]

L["ro"] = [
 ("6", "cs=iso-8859-2 e=qp", "Banca Exemplu", "Cod de autorizare",
  "Stimate client,\n\nCodul de autorizare pentru plata de 1.234,56 lei către Magazin Exemplu SRL este {c}.\n\nCodul este valabil 5 minute. Nu îl comunicați nimănui.\n\nTel: 021 123 4567\n"),
 ("6", "", "Cont Exemplu", "Codul tău de verificare",
  "Salut,\n\nCodul tău de verificare este {c}.\n\nDacă nu ai solicitat acest cod, ignoră acest e-mail.\n"),
 ("6s", "h st=table", "Ghișeul Exemplu", "Cod unic de acces",
  "Stimate utilizator,\nPentru autentificare introduceți codul unic:\n{c}\nNumăr de înregistrare: 2025/45812. Sediu: Str. Lipscani 12, cod poștal 030031 București.\n"),
 ("4", "", "Livrări Exemplu", "Confirmă numărul de telefon",
  "Introdu {c} pentru a confirma numărul 0722 123 456.\n"),
 ("A6", "a st=div", "Joc Exemplu", "Cod de securitate",
  "Salut!\nCodul tău de securitate pentru autentificarea în doi pași:\n{c}\nEvenimentul de iarnă începe pe 15.12.2025.\n"),
 ("6", "", "Magazin Exemplu", "{c} este codul tău de conectare",
  "Folosește codul din subiect pentru a te conecta.\n"),
 (None, "cs=iso-8859-2 e=qp", "Magazin Exemplu", "Comanda nr. 11882290 a fost expediată",
  "Mulțumim pentru comandă!\nComanda nr. 11882290 din 27.11.2025\nAWB: 1234567890123\nAdresa: Bd. Unirii 45, bl. A2, ap. 14, Cluj-Napoca 400000\nTotal: 459,99 lei\n"),
 (None, "", "Banca Exemplu", "Extrasul de cont este disponibil",
  "Extrasul de cont pentru noiembrie 2025 este disponibil. IBAN RO49 AAAA 1B31 0075 9384 0000.\nSold la 30.11.2025: 3.210,45 lei. Card terminat în 4410.\n"),
 (None, "h st=header", "Zboruri Exemplu", "Confirmarea rezervării",
  "Cod rezervare: W6PQ3Z\nZbor RO 301 București (OTP) - Londra (LHR), 18.12.2025, ora 07:05.\nPreț total: 1.120,00 lei. Cod promoțional IARNA25.\n"),
 (None, "", "Suport Exemplu", "Tichetul #55013 a fost actualizat",
  "Tichetul #55013 a fost actualizat la 02.12.2025, ora 16:20.\n"),
]

L["el"] = [
 ("6", "cs=iso-8859-7 e=qp", "Τράπεζα Παράδειγμα", "Κωδικός μίας χρήσης",
  "Αγαπητέ πελάτη,\n\nο κωδικός μίας χρήσης για τη μεταφορά ποσού 1.234,56 € είναι {c}.\n\nΟ κωδικός ισχύει για 5 λεπτά. Μην τον γνωστοποιήσετε σε κανέναν.\n\nΕξυπηρέτηση πελατών: 210 123 4567\n"),
 ("6", "", "Λογαριασμός Παράδειγμα", "Ο κωδικός επαλήθευσής σας",
  "Γεια σας,\n\nΟ κωδικός επαλήθευσής σας είναι: {c}\n\nΑν δεν ζητήσατε εσείς τον κωδικό, αγνοήστε αυτό το μήνυμα.\n"),
 ("6s", "h st=table cs=iso-8859-7", "gov-example", "Κωδικός πρόσβασης στην πλατφόρμα",
  "Αγαπητέ χρήστη,\nγια να ολοκληρώσετε τη σύνδεση πληκτρολογήστε τον κωδικό:\n{c}\nΑριθμός πρωτοκόλλου: 12345/2025. Διεύθυνση: Λεωφ. Κηφισίας 100, Τ.Κ. 115 26 Αθήνα.\n"),
 ("4", "", "Delivery Example", "Επιβεβαίωση αριθμού τηλεφώνου",
  "Πληκτρολογήστε {c} για να επιβεβαιώσετε τον αριθμό 694 123 4567.\n"),
 ("A6", "a st=div", "Παιχνίδι Παράδειγμα", "Κωδικός ασφαλείας",
  "Γεια!\nΟ κωδικός ασφαλείας για την επαλήθευση σε δύο βήματα:\n{c}\nΗ χειμερινή εκδήλωση ξεκινά στις 15/12/2025.\n"),
 ("6", "", "Κατάστημα Παράδειγμα", "{c} είναι ο κωδικός σύνδεσής σας",
  "Χρησιμοποιήστε τον κωδικό από το θέμα για να συνδεθείτε.\n"),
 (None, "cs=iso-8859-7 e=qp", "Κατάστημα Παράδειγμα", "Η παραγγελία σας 4471288 απεστάλη",
  "Ευχαριστούμε για την παραγγελία σας!\nΑριθμός παραγγελίας: 4471288\nΑριθμός αποστολής: 5401234567\nΔιεύθυνση: Ερμού 25, 105 63 Αθήνα\nΣύνολο: 89,90 €\n"),
 (None, "", "Τράπεζα Παράδειγμα", "Το αντίγραφο κίνησης είναι διαθέσιμο",
  "Το αντίγραφο κίνησης Νοεμβρίου 2025 είναι διαθέσιμο. IBAN GR16 0110 1250 0000 0001 2300 695.\nΥπόλοιπο στις 30/11/2025: 2.345,67 €. Κάρτα που λήγει σε 8890.\n"),
 (None, "h st=header", "Πτήσεις Παράδειγμα", "Επιβεβαίωση κράτησης",
  "Κωδικός κράτησης: A3KX7P\nΠτήση A3 602 Αθήνα - Λονδίνο, 19/12/2025, αναχώρηση 08:40.\nΣύνολο: 214,00 €\n"),
 (None, "", "Υποστήριξη Παράδειγμα", "Αίτημα #66012",
  "Το αίτημά σας #66012 καταχωρήθηκε στις 01/12/2025 και θα απαντηθεί εντός 2 εργάσιμων ημερών.\n"),
]

L["he"] = [
 ("6", "cs=windows-1255 e=qp", "בנק לדוגמה", "קוד אימות חד-פעמי",
  "לקוח יקר,\n\nקוד האימות החד-פעמי שלך לביצוע העברה בסך 1,234.56 ₪ הוא: {c}\n\nהקוד תקף ל-5 דקות. אין למסור אותו לאף אחד.\n\nמוקד שירות: 03-1234567\n"),
 ("6", "", "חשבון לדוגמה", "קוד האימות שלך",
  "שלום,\n\nקוד האימות שלך הוא {c}\n\nאם לא ביקשת קוד זה, אפשר להתעלם מההודעה.\n"),
 ("6s", "h st=table cs=windows-1255", "שירות ממשלתי לדוגמה", "קוד כניסה לאזור האישי",
  "שלום,\nלהשלמת הכניסה לאזור האישי הזינו את הקוד:\n{c}\nמספר פנייה: 2025-778812. כתובת: רחוב הרצל 10, תל אביב, מיקוד 6578901.\n"),
 ("4", "", "Delivery Example", "אישור מספר טלפון",
  "הזינו {c} כדי לאשר את המספר 050-123-4567.\n"),
 ("A6", "a st=div", "משחק לדוגמה", "קוד אבטחה",
  "היי!\nקוד האבטחה שלך לאימות דו-שלבי:\n{c}\nאירוע החורף מתחיל ב-15.12.2025.\n"),
 ("6", "", "חנות לדוגמה", "{c} הוא קוד הכניסה שלך",
  "השתמשו בקוד שבנושא ההודעה כדי להתחבר.\n"),
 (None, "cs=windows-1255 e=qp", "חנות לדוגמה", "ההזמנה שלך מספר 8812004 נשלחה",
  "תודה על ההזמנה!\nמספר הזמנה: 8812004\nמספר משלוח: RR123456789IL\nסה\"כ: 349.90 ₪\nכתובת: רחוב יפו 97, ירושלים\n"),
 (None, "", "בנק לדוגמה", "דף החשבון שלך מוכן",
  "דף החשבון לחודש נובמבר 2025 מוכן. חשבון 12-345-678901.\nיתרה ליום 30.11.2025: 5,432.10 ₪. כרטיס המסתיים ב-2231.\n"),
 (None, "h st=header", "טיסות לדוגמה", "אישור הזמנה",
  "קוד הזמנה: LY4R8T\nטיסה LY 315 תל אביב - לונדון, 18.12.2025 בשעה 06:50.\nמחיר: $612\n"),
 (None, "", "תמיכה לדוגמה", "פנייה מספר 44120",
  "פנייה מספר 44120 התקבלה ב-02.12.2025. נחזור אליך תוך 48 שעות.\n"),
]

L["ar"] = [
 ("6", "cs=windows-1256 e=qp", "بنك المثال", "رمز التحقق لمرة واحدة",
  "عزيزي العميل،\n\nرمز التحقق لمرة واحدة لعملية الدفع بمبلغ 1,234.56 ر.س هو: {c}\n\nالرمز صالح لمدة 5 دقائق. لا تشارك هذا الرمز مع أي شخص.\n\nخدمة العملاء: 800 123 4567\n"),
 ("6", "", "حساب المثال", "رمز التحقق الخاص بك",
  "مرحبًا،\n\nرمز التحقق الخاص بك هو {c}\n\nإذا لم تطلب هذا الرمز، يمكنك تجاهل هذه الرسالة.\n"),
 ("6s", "h st=table cs=windows-1256", "بوابة الخدمات الحكومية", "رمز الدخول",
  "عزيزي المستخدم،\nلإكمال تسجيل الدخول، أدخل الرمز التالي:\n{c}\nرقم الطلب: 2025-448812. الرمز البريدي: 12345.\n"),
 ("4", "", "توصيل المثال", "تأكيد رقم الهاتف",
  "أدخل {c} لتأكيد الرقم ‎+966 50 123 4567.\n"),
 ("A6", "a st=div", "لعبة المثال", "رمز الأمان",
  "أهلاً!\nرمز الأمان للتحقق بخطوتين:\n{c}\nتبدأ فعالية الشتاء في 15/12/2025.\n"),
 ("6", "", "متجر المثال", "{c} هو رمز تسجيل الدخول",
  "استخدم الرمز الموجود في عنوان الرسالة لتسجيل الدخول.\n"),
 (None, "cs=windows-1256 e=qp", "متجر المثال", "تم شحن طلبك رقم 7740219",
  "شكرًا لتسوقك معنا!\nرقم الطلب: 7740219\nرقم الشحنة: 3345 8890 1123\nالإجمالي: 459.00 ر.س\nالعنوان: شارع الملك فهد، الرياض 11564\n"),
 (None, "", "بنك المثال", "كشف حسابك جاهز",
  "كشف حساب شهر نوفمبر 2025 جاهز. رقم الآيبان SA03 8000 0000 6080 1016 7519.\nالرصيد في 30/11/2025: 12,345.67 ر.س. البطاقة المنتهية بـ 5510.\n"),
 (None, "h st=header", "طيران المثال", "تأكيد الحجز",
  "رمز الحجز: SV8K2M\nالرحلة SV 1020 الرياض - جدة، ١٨/١٢/٢٠٢٥ الساعة ٠٧:٣٠.\nالسعر: 650 ر.س\n"),
 (None, "", "الدعم الفني", "طلب الدعم رقم 99120",
  "تم استلام طلبك رقم 99120 بتاريخ 01/12/2025. سنرد خلال 48 ساعة. إصدار التطبيق 4.12.\n"),
]

L["hi"] = [
 ("6", "", "उदाहरण बैंक", "आपका OTP",
  "प्रिय ग्राहक,\n\n₹1,23,456.00 के लेनदेन के लिए आपका OTP {c} है। यह 5 मिनट के लिए मान्य है।\n\nकृपया इसे किसी के साथ साझा न करें। बैंक कभी भी OTP नहीं मांगता।\n\nग्राहक सेवा: 1800 123 4567\n"),
 ("6", "", "खाता उदाहरण", "आपका सत्यापन कोड",
  "नमस्ते,\n\nआपका सत्यापन कोड है: {c}\n\nयदि आपने यह अनुरोध नहीं किया है, तो इस ईमेल को अनदेखा करें।\n"),
 ("6s", "h st=table", "सरकारी पोर्टल उदाहरण", "लॉगिन के लिए वन टाइम पासवर्ड",
  "प्रिय उपयोगकर्ता,\nलॉगिन पूरा करने के लिए यह वन टाइम पासवर्ड दर्ज करें:\n{c}\nआवेदन संख्या: 2025/DL/448812, पिन कोड 110001.\n"),
 ("4", "", "डिलीवरी उदाहरण", "मोबाइल नंबर की पुष्टि करें",
  "अपने मोबाइल नंबर +91 98765 43210 की पुष्टि के लिए {c} दर्ज करें।\n"),
 ("A6", "a st=div", "गेम उदाहरण", "सुरक्षा कोड",
  "नमस्ते!\nटू-स्टेप वेरिफिकेशन के लिए आपका सुरक्षा कोड:\n{c}\nविंटर इवेंट 15/12/2025 से शुरू।\n"),
 ("6", "", "शॉप उदाहरण", "{c} आपका लॉगिन कोड है",
  "लॉगिन करने के लिए विषय पंक्ति में दिए गए कोड का उपयोग करें।\n"),
 (None, "", "शॉप उदाहरण", "आपका ऑर्डर 405-1234567-8901234 भेज दिया गया है",
  "धन्यवाद!\nऑर्डर संख्या: 405-1234567-8901234\nट्रैकिंग नंबर: 1489 2201 7733\nकुल राशि: ₹2,499.00\nपता: 12, एमजी रोड, बेंगलुरु 560001\n"),
 (None, "h st=header", "उदाहरण बैंक", "आपका खाता विवरण",
  "नवंबर 2025 का खाता विवरण उपलब्ध है। खाता संख्या XXXXXX4412।\n30/11/2025 को शेष राशि: ₹45,678.90। IFSC: EXMP0001234\n"),
 (None, "", "रेल उदाहरण", "टिकट बुकिंग की पुष्टि",
  "PNR: 4521789630\nट्रेन 12951 नई दिल्ली - मुंबई सेंट्रल, 20/12/2025, प्रस्थान 16:55, कोच B3, सीट 42।\nकिराया: ₹2,865\n"),
 (None, "", "सहायता उदाहरण", "शिकायत संख्या 88120",
  "आपकी शिकायत संख्या 88120 दिनांक 02/12/2025 दर्ज कर ली गई है। 48 घंटे में उत्तर दिया जाएगा।\n"),
]

L["id"] = [
 ("6", "", "Bank Contoh", "Kode OTP Anda",
  "Nasabah Yth.,\n\nKode OTP untuk transaksi sebesar Rp1.234.567 adalah {c}.\n\nKode berlaku 5 menit. JANGAN berikan kode ini kepada siapa pun, termasuk petugas bank.\n\nHalo Contoh: 1500-123\n"),
 ("6", "", "Akun Contoh", "Kode verifikasi Anda",
  "Halo,\n\nKode verifikasi Anda adalah {c}\n\nJika Anda tidak meminta kode ini, abaikan email ini.\n"),
 ("6h", "h st=table", "Layanan Publik Contoh", "Kode masuk satu kali",
  "Yth. Pengguna,\nUntuk menyelesaikan proses masuk, masukkan kode berikut:\n{c}\nNomor permohonan: 2025/448812. Kode pos 10110 Jakarta Pusat.\n"),
 ("4", "", "Ojek Contoh", "Konfirmasi nomor HP",
  "Masukkan {c} untuk mengonfirmasi nomor 0812-3456-7890.\n"),
 ("A6", "a st=div", "Game Contoh", "Kode keamanan",
  "Hai!\nKode keamanan untuk verifikasi 2 langkah:\n{c}\nEvent musim dingin mulai 15/12/2025.\n"),
 ("6", "", "Toko Contoh", "{c} adalah kode login Anda",
  "Gunakan kode di judul email untuk masuk ke akun Anda.\n"),
 (None, "", "Toko Contoh", "Pesanan INV/20251128/MPL/3344556 sedang dikirim",
  "Terima kasih telah berbelanja!\nNo. pesanan: INV/20251128/MPL/3344556\nNo. resi: JP1234567890\nTotal: Rp249.000\nAlamat: Jl. Sudirman No. 45, Jakarta 12190\n"),
 (None, "h st=header", "Bank Contoh", "E-statement November 2025",
  "E-statement rekening 1234567890 periode November 2025 telah tersedia.\nSaldo per 30/11/2025: Rp12.345.678. Kartu berakhiran 9012.\n"),
 (None, "", "Maskapai Contoh", "Konfirmasi pemesanan",
  "Kode booking: GA7QX2\nPenerbangan GA 404 Jakarta (CGK) - Denpasar (DPS), 20/12/2025 pukul 06.15.\nHarga: Rp1.450.000. Pakai kode promo LIBURAN untuk diskon.\n"),
 (None, "", "Bantuan Contoh", "Tiket bantuan #77120",
  "Tiket #77120 telah kami terima pada 01/12/2025 pukul 14.20 WIB.\n"),
]

L["vi"] = [
 ("6", "", "Ngân hàng Ví dụ", "Mã OTP giao dịch",
  "Kính gửi Quý khách,\n\nMã OTP cho giao dịch chuyển khoản 1.234.567 VND là {c}.\n\nMã có hiệu lực trong 3 phút. Tuyệt đối không cung cấp mã cho bất kỳ ai.\n\nTổng đài: 1900 1234\n"),
 ("6", "", "Tài khoản Ví dụ", "Mã xác minh của bạn",
  "Xin chào,\n\nMã xác minh của bạn là: {c}\n\nNếu bạn không yêu cầu mã này, vui lòng bỏ qua email.\n"),
 ("6s", "h st=table", "Cổng dịch vụ công Ví dụ", "Mã đăng nhập một lần",
  "Kính gửi người dùng,\nĐể hoàn tất đăng nhập, vui lòng nhập mã sau:\n{c}\nSố hồ sơ: 2025/448812. Địa chỉ: 16 Lê Thánh Tôn, Quận 1, TP.HCM.\n"),
 ("4", "", "Giao hàng Ví dụ", "Xác nhận số điện thoại",
  "Nhập {c} để xác nhận số điện thoại 090 123 4567.\n"),
 ("A6", "a st=div", "Trò chơi Ví dụ", "Mã bảo mật",
  "Chào bạn!\nMã bảo mật cho xác minh 2 bước:\n{c}\nSự kiện mùa đông bắt đầu ngày 15/12/2025.\n"),
 ("6", "", "Cửa hàng Ví dụ", "{c} là mã đăng nhập của bạn",
  "Sử dụng mã ở tiêu đề email để đăng nhập.\n"),
 (None, "", "Cửa hàng Ví dụ", "Đơn hàng 251128ABC123 đã được giao cho đơn vị vận chuyển",
  "Cảm ơn bạn đã mua sắm!\nMã đơn hàng: 251128ABC123\nMã vận đơn: GHN8812345\nTổng tiền: 459.000 ₫\nĐịa chỉ: 25 Hàng Bài, Hoàn Kiếm, Hà Nội\n"),
 (None, "h st=header", "Ngân hàng Ví dụ", "Sao kê tài khoản tháng 11/2025",
  "Sao kê tài khoản 0123456789 tháng 11/2025 đã sẵn sàng.\nSố dư ngày 30/11/2025: 12.345.678 VND. Thẻ có số cuối 3344.\n"),
 (None, "", "Hãng bay Ví dụ", "Xác nhận đặt chỗ",
  "Mã đặt chỗ: VN5K8P\nChuyến bay VN 213 Hà Nội - TP.HCM, 20/12/2025, khởi hành 07:00.\nGiá vé: 1.890.000 VND. Nhập mã TET2026 để được giảm giá.\n"),
 (None, "", "Hỗ trợ Ví dụ", "Yêu cầu hỗ trợ #66120",
  "Yêu cầu #66120 của bạn đã được tiếp nhận lúc 10:15 ngày 02/12/2025.\n"),
]

L["th"] = [
 ("6", "cs=tis-620 e=b64", "ธนาคารตัวอย่าง", "รหัส OTP สำหรับทำรายการ",
  "เรียน ลูกค้า\n\nรหัส OTP สำหรับการโอนเงินจำนวน 1,234.56 บาท คือ {c} (รหัสอ้างอิง: ABCD)\n\nรหัสมีอายุ 5 นาที ห้ามเปิดเผยรหัสนี้แก่ผู้อื่น\n\nศูนย์บริการลูกค้า 02 123 4567\n"),
 ("6", "", "บัญชีตัวอย่าง", "รหัสยืนยันของคุณ",
  "สวัสดี\n\nรหัสยืนยันของคุณคือ {c}\n\nหากคุณไม่ได้ขอรหัสนี้ โปรดเพิกเฉยต่ออีเมลฉบับนี้\n"),
 ("6s", "h st=table cs=tis-620", "บริการภาครัฐตัวอย่าง", "รหัสเข้าสู่ระบบแบบใช้ครั้งเดียว",
  "เรียน ผู้ใช้งาน\nกรุณากรอกรหัสต่อไปนี้เพื่อเข้าสู่ระบบ\n{c}\nเลขที่คำขอ 2568/448812 รหัสไปรษณีย์ 10200\n"),
 ("4", "", "เดลิเวอรี่ตัวอย่าง", "ยืนยันหมายเลขโทรศัพท์",
  "กรอก {c} เพื่อยืนยันหมายเลข 081 234 5678\n"),
 ("A6", "a st=div", "เกมตัวอย่าง", "รหัสความปลอดภัย",
  "สวัสดี!\nรหัสความปลอดภัยสำหรับการยืนยันตัวตนแบบสองขั้นตอน:\n{c}\nกิจกรรมฤดูหนาวเริ่ม 15/12/2568\n"),
 ("6", "", "ร้านค้าตัวอย่าง", "{c} คือรหัสเข้าสู่ระบบของคุณ",
  "ใช้รหัสในหัวเรื่องอีเมลเพื่อเข้าสู่ระบบ\n"),
 (None, "cs=tis-620 e=b64", "ร้านค้าตัวอย่าง", "คำสั่งซื้อ 2511284471 ถูกจัดส่งแล้ว",
  "ขอบคุณที่สั่งซื้อ!\nหมายเลขคำสั่งซื้อ: 2511284471\nเลขพัสดุ: TH0123456789\nยอดรวม: ฿1,290.00\nที่อยู่: 99 ถนนสุขุมวิท กรุงเทพฯ 10110\n"),
 (None, "h st=header", "ธนาคารตัวอย่าง", "ใบแจ้งยอดบัญชีเดือนพฤศจิกายน 2568",
  "ใบแจ้งยอดบัญชีเลขที่ 123-4-56789-0 พร้อมแล้ว\nยอดคงเหลือ ณ 30/11/2568: 45,678.90 บาท บัตรลงท้ายด้วย 7788\n"),
 (None, "", "สายการบินตัวอย่าง", "ยืนยันการจอง",
  "รหัสการจอง: TG4M7K\nเที่ยวบิน TG 102 กรุงเทพฯ - เชียงใหม่ 20/12/2568 เวลา 08:05 น.\nราคา 2,450 บาท\n"),
 (None, "", "ฝ่ายสนับสนุนตัวอย่าง", "คำร้องเลขที่ 55120",
  "เราได้รับคำร้องเลขที่ 55120 เมื่อวันที่ 2 ธ.ค. 2568 เวลา 10:30 น. แล้ว\n"),
]

L["uk"] = [
 ("6", "cs=koi8-u e=qp", "Приклад Банк", "Одноразовий пароль",
  "Шановний клієнте,\n\nодноразовий пароль для підтвердження переказу на суму 1 234,56 грн: {c}\n\nПароль дійсний 5 хвилин. Нікому його не повідомляйте.\n\nКонтакт-центр: 0 800 123 456\n"),
 ("6", "", "Обліковий запис Приклад", "Ваш код підтвердження",
  "Вітаємо!\n\nВаш код підтвердження: {c}\n\nЯкщо ви не запитували код, просто проігноруйте цей лист.\n"),
 ("6s", "h st=table cs=koi8-u", "Держпортал Приклад", "Код для входу",
  "Шановний користувачу,\nдля завершення входу введіть код:\n{c}\nНомер заяви 2025/448812. Адреса: вул. Хрещатик, 22, Київ, 01001.\n"),
 ("4", "", "Доставка Приклад", "Підтвердіть номер телефону",
  "Введіть {c}, щоб підтвердити номер +380 67 123 4567.\n"),
 ("A6", "a st=div", "Гра Приклад", "Код безпеки",
  "Привіт!\nТвій код безпеки для двоетапної перевірки:\n{c}\nЗимова подія стартує 15.12.2025.\n"),
 ("6", "", "Магазин Приклад", "{c} — ваш код для входу",
  "Використайте код із теми листа, щоб увійти.\n"),
 (None, "cs=koi8-u e=qp", "Магазин Приклад", "Замовлення 5512884 відправлено",
  "Дякуємо за замовлення!\nНомер замовлення: 5512884\nНомер ТТН: 20450012345678\nСума: 1 299,00 грн\nАдреса: м. Львів, вул. Городоцька, 15, відділення 12\n"),
 (None, "", "Приклад Банк", "Виписка за листопад 2025",
  "Виписка за листопад 2025 доступна. IBAN UA21 3223 1300 0002 6007 2335 6600 1.\nЗалишок на 30.11.2025: 12 345,67 ₴. Картка, що закінчується на 4451.\n"),
 (None, "h st=header", "Авіа Приклад", "Підтвердження бронювання",
  "Код бронювання: PS7Q4K\nРейс PS 101 Київ - Варшава, 20.12.2025 о 07:10.\nВартість: 3 450 грн. Промокод ЗИМА для знижки.\n"),
 (None, "", "Підтримка Приклад", "Звернення № 66120",
  "Ваше звернення № 66120 від 01.12.2025 зареєстровано. Відповімо протягом 48 годин.\n"),
]

L["ru"] = [
 ("6", "cs=koi8-r e=b64", "Пример Банк", "Код подтверждения операции",
  "Уважаемый клиент!\n\nКод для подтверждения перевода 12 345,67 руб. на карту *4242: {c}\n\nНикому не сообщайте код, даже сотрудникам банка.\n\nТелефон: 8 800 123-45-67\n"),
 ("6", "cs=windows-1251 e=qp", "Пример ID", "Код для входа в аккаунт",
  "Здравствуйте!\n\nКто-то пытается войти в ваш аккаунт с устройства iPhone (Москва, 29.11.2025 в 21:14).\nЕсли это вы, введите код: {c}\n\nЕсли это не вы, смените пароль.\n"),
 ("6h", "h st=table", "Госуслуги-Пример", "Код подтверждения",
  "Уважаемый пользователь,\nдля входа в личный кабинет введите код подтверждения:\n{c}\nНомер заявления 2025-448812. Индекс 101000, Москва.\n"),
 ("4", "", "Доставка Пример", "Подтвердите номер телефона",
  "Введите {c}, чтобы подтвердить номер +7 (912) 345-67-89.\n"),
 ("A6", "a st=div", "Игра Пример", "Код безопасности",
  "Привет!\nТвой одноразовый код для двухэтапной проверки:\n{c}\nЗимний ивент стартует 15.12.2025.\n"),
 ("6", "", "Маркет Пример", "{c} — код для входа в Маркет Пример",
  "Используйте код из темы письма. Он действует 10 минут.\n"),
 (None, "cs=windows-1251 e=qp", "Маркет Пример", "Заказ № 78412003 передан в доставку",
  "Спасибо за заказ!\nНомер заказа: 78412003\nТрек-номер: 80081234567890\nСумма: 4 590 руб.\nАдрес: г. Санкт-Петербург, Невский пр., д. 28, кв. 14, 191186\n"),
 (None, "", "Пример Банк", "Выписка по счёту",
  "Выписка по счёту 40817810099910004312 за ноябрь 2025 готова.\nОстаток на 30.11.2025: 23 456,78 ₽. Карта **** 7723.\n"),
 (None, "h st=header", "Авиа Пример", "Подтверждение бронирования",
  "Код бронирования: SU4K7Z\nРейс SU 1402 Москва - Сочи, 20.12.2025 в 07:45, место 18C.\nСтоимость: 12 900 ₽. Промокод NOVYIGOD2026.\n"),
 (None, "", "Поддержка Пример", "Обращение № 99120",
  "Ваше обращение № 99120 от 02.12.2025 зарегистрировано. Версия приложения 4.12.\n"),
]

L["ja"] = [
 ("6", "cs=iso-2022-jp", "サンプル銀行", "【サンプル銀行】ワンタイムパスワードのお知らせ",
  "サンプル銀行をご利用いただきありがとうございます。\n\nお振込み（金額：123,456円）のワンタイムパスワードは以下のとおりです。\n\nワンタイムパスワード：{c}\n\n有効期限は発行から5分間です。\nお問い合わせ：0120-123-456（平日9:00〜17:00）\n"),
 ("6", "cs=shift_jis e=b64", "サンプルID", "確認コードのお知らせ",
  "サンプルIDをご利用いただきありがとうございます。\n\n確認コード：{c}\n\nこのコードを画面に入力してください。お心当たりのない場合は、このメールを破棄してください。\n"),
 ("6s", "h st=table", "マイポータル（サンプル）", "ログイン認証コード",
  "いつもご利用ありがとうございます。\nログインを完了するには、次の認証コードを入力してください。\n{c}\n受付番号：2025-448812　〒100-0001 東京都千代田区千代田1-1\n"),
 ("4", "", "デリバリーサンプル", "電話番号の確認",
  "{c} を入力して、電話番号 090-1234-5678 を確認してください。\n"),
 ("A6", "a st=div", "サンプルゲーム", "セキュリティコード",
  "こんにちは！\n2段階認証のセキュリティコード：\n{c}\n冬のイベントは2025年12月15日（月）から開催！\n"),
 ("6", "cs=iso-2022-jp", "サンプルショップ", "{c} はあなたのログインコードです",
  "件名のコードを入力してログインしてください。\n"),
 (None, "cs=shift_jis e=b64", "サンプルショップ", "ご注文の商品を発送しました（注文番号：250-1234567-8901234）",
  "ご注文ありがとうございます。\n注文番号：250-1234567-8901234\nお問い合わせ伝票番号：1234-5678-9012\nお届け予定日：2025年12月3日（水）14時〜16時\n合計金額：12,980円（税込）\n"),
 (None, "cs=iso-2022-jp", "サンプル銀行", "【重要】お取引明細のお知らせ",
  "2025年11月分のお取引明細が確定しました。\n口座番号：普通 1234567\n残高（11月30日現在）：1,234,567円\n"),
 (None, "h st=header", "サンプル航空", "ご予約確認",
  "予約番号：JL7K2Q\n便名：JL 123 羽田 07:30発 － 伊丹 08:45着　2025年12月20日\n運賃：18,500円\n"),
 (None, "", "サポート（サンプル）", "お問い合わせ番号 #66120 を受け付けました",
  "お問い合わせ（受付番号 #66120）を2025/12/02 10:15に受け付けました。2営業日以内にご回答いたします。\n"),
]

L["ko"] = [
 ("6", "cs=euc-kr e=b64", "예시은행", "[예시은행] 인증번호 안내",
  "고객님, 안녕하세요.\n\n1,234,560원 이체를 위한 인증번호는 [{c}] 입니다.\n\n인증번호는 3분간 유효합니다. 타인에게 절대 알려주지 마세요.\n\n고객센터 1588-1234\n"),
 ("6", "", "예시 계정", "인증 코드",
  "안녕하세요.\n\n인증 코드: {c}\n\n본인이 요청하지 않았다면 이 메일을 무시하세요.\n"),
 ("6s", "h st=table cs=euc-kr", "정부24 예시", "로그인 일회용 인증번호",
  "안녕하세요.\n로그인을 완료하려면 아래 인증번호를 입력하세요.\n{c}\n접수번호 2025-448812, 우편번호 03154\n"),
 ("4", "", "배달 예시", "휴대폰 번호 인증",
  "{c}을(를) 입력하여 010-1234-5678 번호를 인증하세요.\n"),
 ("A6", "a st=div", "예시 게임", "보안 코드",
  "안녕하세요!\n2단계 인증 보안 코드:\n{c}\n겨울 이벤트는 2025년 12월 15일부터 시작됩니다.\n"),
 ("6", "", "예시 쇼핑", "{c}은(는) 회원님의 로그인 코드입니다",
  "메일 제목의 코드를 입력하여 로그인하세요.\n"),
 (None, "cs=euc-kr e=b64", "예시 쇼핑", "주문하신 상품이 발송되었습니다",
  "주문해 주셔서 감사합니다.\n주문번호: 20251128-0044712\n운송장번호: 6123-4567-8901\n결제금액: 39,800원\n배송지: 서울특별시 중구 세종대로 110 (우편번호 04524)\n"),
 (None, "", "예시은행", "11월 거래내역 안내",
  "2025년 11월 거래내역이 준비되었습니다.\n계좌번호 123-456-789012\n11월 30일 기준 잔액: 2,345,670원\n"),
 (None, "h st=header", "예시 항공", "예약 확인",
  "예약번호: KE5P8R\n항공편 KE 1203 김포 07:00 출발 - 제주 08:10 도착, 2025년 12월 20일\n운임: 89,000원\n"),
 (None, "", "예시 고객지원", "문의 #66120 접수 완료",
  "문의번호 #66120 이(가) 2025.12.02 10:15에 접수되었습니다. 앱 버전 4.12에서 수정되었습니다.\n"),
]

L["zh"] = [
 ("6", "cs=gb2312 e=b64", "示例银行", "【示例银行】动态验证码",
  "尊敬的客户：\n\n您正在进行转账操作，金额 12,345.67 元，收款账户尾号 4242。\n动态验证码：{c}\n\n验证码5分钟内有效，请勿泄露给他人。\n客服热线：95588\n"),
 ("6", "", "示例账号", "您的验证码",
  "您好！\n\n您的验证码为 {c}，10分钟内有效。\n\n如非本人操作，请忽略本邮件。\n"),
 ("6s", "h st=table cs=gb2312", "政务服务示例", "登录校验码",
  "尊敬的用户：\n请输入以下校验码完成登录：\n{c}\n受理编号：2025-448812，邮编 100010。\n"),
 ("4", "", "外卖示例", "手机号验证",
  "请输入 {c} 验证手机号 138 1234 5678。\n"),
 ("A6", "a st=div", "示例游戏", "安全码",
  "你好！\n你的两步验证安全码：\n{c}\n冬季活动将于2025年12月15日开启。\n"),
 ("6", "", "示例商城", "{c} 是您的登录验证码",
  "请使用邮件标题中的验证码登录。\n"),
 (None, "cs=gb2312 e=b64", "示例商城", "您的订单已发货",
  "感谢您的购买！\n订单号：251128004471203\n快递单号：SF1234567890123\n实付金额：￥1,299.00\n收货地址：北京市朝阳区建国路88号，邮编100022\n"),
 (None, "", "示例银行", "11月对账单",
  "您尾号 6621 的信用卡 2025年11月对账单已出。\n本期应还金额：3,456.78 元，最后还款日：2025年12月20日。\n"),
 (None, "h st=header", "示例航空", "预订确认",
  "预订编号：CA7K2Q\n航班 CA 1501 北京首都 08:00 - 上海虹桥 10:15，2025年12月20日。\n票价：1,280 元。优惠码 NEWYEAR2026。\n"),
 (None, "", "示例客服", "工单 #66120 已受理",
  "您的工单 #66120 已于 2025-12-02 10:15 受理，我们将在48小时内回复。\n"),
]

# Further shapes, so that no language reads like a single template.
EXTRA = [
 ("en", ("6", "a st=table", "Acme Outdoor", "Your Acme account: one more step",
  "Hi there,\n\nThanks for creating an Acme Outdoor account! Before you start planning your next trip, we need to make sure this email address belongs to you. This helps us keep your account secure and lets us send you order updates, receipts and the occasional trail report.\n\nMembers get early access to our Winter Sale (starts 12/01/2025), free returns within 60 days, and 2x points on all footwear through January 15, 2026.\n\nTo verify your email, enter this code on the sign-up page:\n{c}\n\nYour member number will be assigned once you're verified. Store hours: Mon-Sat 10-8, Sun 11-6. 1450 Alpine Way, Boulder, CO 80302, (303) 555-0178.\n")),
 ("en", ("6", "h st=cells", "Fabrikam Pay", "Confirm your sign-in",
  "Enter this code to confirm your sign-in:\n{c}\nRequested on Dec 1, 2025, 9:41 PM from Chicago, IL 60601.\n")),
 ("en", ("6", "", "Contoso Wireless", "Your one-time PIN",
  "Your one-time PIN is {c}. Use it to authorize the SIM change on line (312) 555-0147.\nAccount number 8801 2244 19. Your next bill of $64.99 is due 12/15/2025.\n")),
 ("en", ("6", "", "Vaultly", "Login attempt",
  "Use {c} to sign in to Vaultly. Reference number 5512-9981 (quote it if you contact support).\n")),
 ("en", (None, "h st=header", "Vaultly", "Sign in to Vaultly",
  "Click the button below to sign in. This link expires in 15 minutes and can only be used once.\nSign in to Vaultly\nRequest ID 883412, Dec 2, 2025 08:14 UTC, IP 203.0.113.54.\n")),
 ("en", (None, "", "Contoso Wireless", "Your PIN has been changed",
  "The account PIN for line (312) 555-0147 was changed on 11/30/2025 at 6:12 PM.\nIf you didn't do this, call us at 611 or 1-800-555-0111. Account number 8801 2244 19.\n")),
 ("en", (None, "", "Northwind ID", "Identity verification complete",
  "Your identity verification (request 20251201-4471) is complete. Your verification level is now 2 of 3.\nUpload limit: 500 MB per file, 10 GB in total.\n")),
 ("de", ("8", "a st=div", "Versicherung Beispiel", "Ihr Zugang zum Kundenportal",
  "Sehr geehrter Herr Schneider,\n\nvielen Dank für Ihre Registrierung im Kundenportal der Versicherung Beispiel. Dort können Sie künftig Ihre Verträge einsehen, Schäden melden und Dokumente herunterladen. Ihre Versicherungsscheinnummer 12-345678-90 ist bereits hinterlegt, der nächste Beitrag von 87,40 € wird am 01.01.2026 fällig.\n\nUm die Registrierung abzuschließen, geben Sie bitte das folgende Einmalpasswort ein:\n{c}\n\nBei Fragen erreichen Sie uns unter 0221 1234-0, Mo. bis Fr. von 8 bis 18 Uhr.\n")),
 ("de", (None, "", "Nordstern Bank", "Ihre neue PIN ist unterwegs",
  "Ihre neue Girocard (Karte endet auf 4410) wurde am 28.11.2025 versandt. Die PIN erhalten Sie in einem separaten Brief innerhalb von 3 bis 5 Werktagen.\nBLZ 370 400 44, Filiale Hauptstr. 1, 50667 Köln.\n")),
 ("fr", ("5", "", "Assurance Exemple", "Votre code d'accès temporaire",
  "Bonjour,\n\nVoici votre code d'accès temporaire à 5 chiffres : {c}\n\nNuméro de contrat : 4401 2288 7. Prochaine échéance le 05/01/2026 : 42,30 €.\n")),
 ("fr", (None, "h st=div", "Boutique Exemple", "Votre code promo de Noël",
  "Profitez de -15 % sur tout le site avec le code NOEL2025, jusqu'au 24/12/2025 à minuit.\nLivraison offerte dès 49 € d'achat. Boutique : 14 rue Sainte-Catherine, 33000 Bordeaux.\n")),
 ("es", ("6", "h st=header", "Cuenta Ejemplo", "Verifica tu correo",
  "¡Hola!\nEstás a un paso de completar tu registro. Introduce este código de verificación:\n{c}\nHemos guardado tu dirección: C/ Alcalá 120, código postal 28009 Madrid.\n")),
 ("pt", ("6", "", "Banco Exemplo", "Seu token de acesso",
  "Olá, Ana!\n\nSeu token de acesso é {c}. Ele é válido por 2 minutos.\nAgência 1234, conta 56789-0. Nunca informe seu token por telefone.\n")),
 ("pt", (None, "", "Loja Exemplo", "Seu código de rastreio",
  "Seu pedido nº 78123466 já está a caminho!\nCódigo de rastreamento: LB123456789HK\nPrevisão de entrega: 05/12/2025. CEP de destino: 20040-020.\n")),
 ("it", (None, "cs=iso-8859-15 e=qp", "Energia Esempio", "La tua bolletta è disponibile",
  "Gentile cliente,\nil tuo codice cliente è 48812293. La bolletta n. 2025/0098812 di 112,45 € scade il 15/12/2025.\nCodice POD: IT001E12345678\n")),
 ("ru", ("6", "", "Почта Пример", "Пароль для входа",
  "Ваш одноразовый пароль для входа: {c}\nНе сообщайте его никому. Отделение 101000, ул. Мясницкая, д. 26.\n")),
 ("ru", (None, "", "Пример Банк", "ПИН-код изменён",
  "ПИН-код по карте **** 7723 изменён 30.11.2025 в 18:02. Если это были не вы, позвоните 8 800 123-45-67.\n")),
 ("ja", ("6w", "cs=iso-2022-jp", "サンプル証券", "【サンプル証券】認証コードのお知らせ",
  "サンプル証券をご利用いただき、誠にありがとうございます。\n\nログイン時の追加認証のため、認証コードをお送りします。\n\n認証コード：{c}\n\n有効期限：送信から10分\nお客様番号：123-456789\n")),
 ("ja", (None, "", "サンプルショップ", "会員登録完了のお知らせ",
  "会員登録が完了しました。\n会員番号：8801234567\nご登録の郵便番号：〒150-0002\n初回ご購入で使える500円クーポンをプレゼント！\n")),
 ("ar", ("6i", "", "محفظة المثال", "رمز التحقق",
  "رمز التحقق الخاص بك هو: {c}\nلا تشارك هذا الرمز مع أي شخص. الرمز صالح لمدة ١٠ دقائق.\n")),
 ("zh", ("6", "cs=gb2312 e=b64", "示例支付", "动态密码",
  "您好，您本次操作的动态密码为：{c}，有效期3分钟。\n工作人员不会向您索取动态密码，请勿告诉他人。\n")),
 ("ko", (None, "cs=euc-kr e=b64", "예시 쇼핑", "회원가입을 환영합니다",
  "회원가입을 축하합니다!\n회원번호: 20251201-7731\n신규 회원 쿠폰 코드 WELCOME10 (10% 할인, 2025.12.31까지)\n")),
 ("tr", ("6", "", "Örnek Bank", "Kart işleminiz için doğrulama",
  "Kartınızla (son 4 hane 1122) 2.150,00 ₺ tutarında internet alışverişi yapılıyor. İşlemi onaylamak için 3D Secure şifrenizi girin: {c}\nBilginiz dışında ise 0850 222 0 000'i arayın.\n")),
 ("pl", (None, "", "Sklep Przykład", "Twój kod rabatowy",
  "Dziękujemy za zapisanie się do newslettera! Twój kod rabatowy: NEWS15 (-15% na pierwsze zamówienie powyżej 99 zł, ważny do 31.12.2025).\n")),
 ("nl", ("6h", "", "Zorgverzekeraar Voorbeeld", "Uw inlogcode",
  "Geachte heer De Vries,\n\nUw inlogcode voor Mijn Zorg is {c}.\nRelatienummer 123456789. Uw eigen risico 2026 bedraagt € 385.\n")),
 ("id", (None, "", "Dompet Contoh", "Top up berhasil",
  "Top up saldo sebesar Rp500.000 berhasil pada 01/12/2025 pukul 19.42 WIB.\nID transaksi: 2512011942000123. Sisa saldo: Rp1.234.500.\n")),
 ("vi", ("6", "", "Ví điện tử Ví dụ", "Mã OTP",
  "Mã OTP của bạn là {c}. Không chia sẻ mã này cho bất kỳ ai. Số dư ví: 2.345.000 ₫.\n")),
 ("hi", (None, "", "बीमा उदाहरण", "आपकी पॉलिसी नवीनीकृत हो गई है",
  "पॉलिसी संख्या 1234/5678/90 का नवीनीकरण 01/12/2025 को हो गया है। प्रीमियम: ₹12,345। अगली देय तिथि: 01/12/2026।\n")),
 ("he", ("6", "", "קופת חולים לדוגמה", "קוד חד-פעמי לכניסה",
  "הקוד החד-פעמי שלך לכניסה לאתר הוא {c}\nמספר תור: 5512, יום ב' 08.12.2025 בשעה 09:30.\n")),
 ("th", (None, "", "ร้านค้าตัวอย่าง", "โค้ดส่วนลดสำหรับคุณ",
  "รับส่วนลด 15% ด้วยโค้ด NEWYEAR2026 เมื่อช้อปครบ 999 บาท ถึง 31/12/2568\n")),
 ("uk", ("8", "", "Пошта Приклад", "Код для входу в кабінет",
  "Ваш код для входу: {c}\nНомер відділення 12, графік роботи 08:00-20:00.\n")),
 ("el", (None, "", "Κατάστημα Παράδειγμα", "Κωδικός έκπτωσης",
  "Χρησιμοποιήστε τον κωδικό έκπτωσης XMAS25 για 25% έκπτωση έως 24/12/2025. Δωρεάν αποστολή για αγορές άνω των 40 €.\n")),
 ("cs", (None, "", "Úřad Příklad", "Potvrzení o podání",
  "Vaše podání bylo přijato dne 01.12.2025 v 10:42 pod číslem jednacím 2025/8812-4. Identifikátor datové schránky: abc12de.\n")),
 ("ro", ("6", "", "Portal Taxe Exemplu", "Cod de verificare",
  "Codul dumneavoastră de verificare este {c}. Număr dosar: 4471/2025. Suma de plată: 245,00 lei.\n")),
 ("sv", (None, "", "Exempelbanken", "Ny inloggning",
  "Du loggade in i internetbanken 2025-12-01 kl. 19:42 från en ny enhet (iPhone 15, iOS 18.1).\nOm det inte var du, ring 0771-12 34 56.\n")),
 ("en", (None, "", "Lumen Bank", "Your new account details",
  "Welcome to Lumen Bank UK.\nSort code: 20-45-77\nAccount number: 41239988\nPlease confirm your billing zip code 94107 or postcode EC1A 1BB when you first log in.\n")),
 ("de", (None, "", "Stadtwerke Beispielstadt", "Willkommen im Kundenportal",
  "Ihre Kundennummer lautet 4711082. Ihr Abschlag beträgt ab 01.01.2026 monatlich 96,00 €.\nZählernummer: 1ESY1160512345\n")),
 ("es", (None, "", "Seguros Ejemplo", "Bienvenido a Seguros Ejemplo",
  "Tu número de cliente es 55120033 y tu póliza n.º 0012-4471-88 ya está activa desde el 01/12/2025.\nPrima anual: 312,40 €.\n")),
 ("fr", (None, "", "Livrexpress", "Votre colis arrive demain",
  "Votre numéro de suivi est le 8R01234567890. Livraison prévue le 03/12/2025 entre 9h et 13h au 8 rue Lafayette, 69003 Lyon.\n")),
]
for lang, entry in EXTRA:
    L[lang].append(entry)

LEGACY_FIX = {"ro": {"ș": "ş", "ț": "ţ", "Ș": "Ş", "Ț": "Ţ"}}

def main():
    if os.path.isdir(OUT):
        for f in os.listdir(OUT):
            if f.endswith(".eml"):
                os.remove(os.path.join(OUT, f))
    else:
        os.makedirs(OUT)
    expected = []
    idx = 0
    for lang in L:
        for spec, flags, sender, subject, body in L[lang]:
            idx += 1
            cs = re.search(r"cs=(\S+)", flags)
            if cs and lang in LEGACY_FIX and cs.group(1) != "utf-8":
                for a, b in LEGACY_FIX[lang].items():
                    subject, body = subject.replace(a, b), body.replace(a, b)
                    if isinstance(sender, str):
                        sender = sender.replace(a, b)
            data, exp = build(lang, idx, spec, flags, sender, subject, body)
            name = "%03d-%s.eml" % (idx, lang)
            with open(os.path.join(OUT, name), "wb") as f:
                f.write(data)
            expected.append({"file": name, "lang": lang, "expected": exp})
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d messages" % len(expected))
    validate(expected)

def visible(part_text, subtype):
    if subtype == "html":
        part_text = re.sub(r"(?is)<(style|script)\b.*?</\1>", " ", part_text)
        part_text = re.sub(r"(?s)<[^>]+>", " ", part_text)
        part_text = html.unescape(part_text)
    return part_text

def validate(expected):
    """Every message parses with the email package, without defects, and its
    decoded subject and text hold the expected code (separators removed)."""
    import email, unicodedata
    from email import policy
    from collections import Counter
    bad = 0
    per, codes = Counter(), Counter()
    for e in expected:
        with open(os.path.join(OUT, e["file"]), "rb") as f:
            msg = email.message_from_bytes(f.read(), policy=policy.default)
        texts = [str(msg["subject"]), str(msg["from"])]
        for part in msg.walk():
            if part.defects:
                print("DEFECT", e["file"], part.defects); bad += 1
            if part.get_content_maintype() == "text":
                texts.append(visible(part.get_content(), part.get_content_subtype()))
        t = unicodedata.normalize("NFKC", "\n".join(texts))
        t = "".join(str(unicodedata.digit(ch)) if ch.isdigit() and not ch.isascii() and unicodedata.digit(ch, None) is not None else ch for ch in t)
        flat = re.sub(r"[\s\-]+", "", t)
        per[e["lang"]] += 1
        if e["expected"] is not None:
            codes[e["lang"]] += 1
            if e["expected"] not in flat:
                print("MISSING", e["file"], e["expected"]); bad += 1
    n = len(expected); nc = sum(codes.values())
    for lang in per:
        print("%-3s %3d messages  %2d with a code  %2d traps" % (lang, per[lang], codes[lang], per[lang] - codes[lang]))
    print("total %d: %d with a code (%.1f %%), %d traps (%.1f %%), %d languages" % (n, nc, 100.0 * nc / n, n - nc, 100.0 * (n - nc) / n, len(per)))
    if bad:
        sys.exit("validation failed: %d problems" % bad)

if __name__ == "__main__":
    main()
