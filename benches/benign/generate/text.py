"""Prose in many languages, built from sentence templates and word lists so that no two texts are near-duplicates:
what customers, forum members and support agents type, with the punctuation people use (quotes, apostrophes,
semicolons, pipes, ampersands, parentheses, `--`, slashes, `#`, `<3`, emoticons, prices, times, addresses).

Each language: Accept-Language, names, cities, streets, products, price formats, sentence templates (slots {p}
product, {c} city, {n} name, {k} number, {m} money, {t} time, {o} order number, {s} street address), openers,
closers and search phrases.
"""
from .common import pick

L = {}

L["en"] = dict(
    accept=["en-US,en;q=0.9", "en-GB,en;q=0.9", "en-AU,en;q=0.9", "en-CA,en;q=0.9,fr-CA;q=0.8", "en-IN,en;q=0.9"],
    names=["Emily Carter", "Tom O'Neill", "Dana Whitfield", "Marcus Lee", "Aisha Bello", "Ryan D'Souza",
           "Siobhan McCarthy", "Jake Thompson", "Priya Nair", "Chris O'Connor", "Hannah Brooks", "Daniel Okafor"],
    cities=["Leeds", "Cork", "Portland", "Austin", "Manchester", "Toronto", "Melbourne", "Glasgow", "Denver",
            "Auckland", "Bristol", "St. John's"],
    streets=["{k} Baker St, Apt 4B", "{k} O'Connell Street", "{k}-{k} King's Road", "{k} Maple Ave #12",
             "Unit 3/{k} George St", "{k} Main St., Suite 200", "P.O. Box {k}"],
    products=["rain jacket", "kettle", "standing desk", "trail shoes", "coffee grinder", "wool blanket",
              "phone case", "bike light", "cast-iron pan", "noise-cancelling headphones", "air fryer",
              "kids' backpack", "yoga mat", "LED strip (5 m)", "desk lamp", "2-in-1 charger"],
    money=["${a}.{b}", "£{a}.{b}", "$ {a}", "USD {a}.{b}", "A${a}", "{a} bucks"],
    t=["{h}:{mi} am", "{h}:{mi} pm", "{h}pm", "noon", "{h}:{mi}"],
    templates=[
        'Booked a table for {k} at {t} -- can we move it to half an hour later?',
        "The app keeps logging me out after the last update (v{k}.{k}); I'm on Android 14.",
        "Our flight lands at {t}, so we'll check in late; is the reception open 24/7?",
        'Great workshop yesterday! Slides please? Also: is there a recording for those who missed part 2/3?',
        "I can't find the invoice for {m} in my account -> Orders -> History, am I looking in the wrong place?",
        'Loved the pasta; the tiramisu, not so much (too sweet for me) but the staff were lovely :)',
        "I ordered the {p} on Monday and it hasn't arrived yet.",
        "The tracking page says \"label created\" since {t} yesterday -- is that normal?",
        "Could you check order #{o}? I was charged {m} twice.",
        "It's great, but it's {k} cm too tall for the shelf; can I swap it for the smaller one?",
        "Five stars: the {p} is sturdier than I expected & the packaging was 100% plastic-free.",
        "Runs a bit small, so order one size up if you're between sizes (I'm usually an M/L).",
        "My address changed to {s}, {c} -- please update it before shipping.",
        "Is the {p} compatible with the older model (2019/2020)?",
        "We're a small team of {k}; do you offer a discount for bulk orders?",
        "Delivery window 9-{t} works for me; the buzzer is broken, so call me when you're outside.",
        "Honestly the best {p} I've owned; my wife's already \"borrowed\" it <3",
        "Support was quick (under {k} minutes!) and they sent a replacement free of charge.",
        "The app says 'payment pending' but my bank says it went through; what's going on?",
        "Quick question: does the {p} ship to {c}, and what's the cost?",
        "Not bad for {m}, though the instructions were a bit vague (step 4 especially).",
        "Please don't leave it with the neighbours at no. {k}; they're away until the {k}th.",
    ],
    openers=["Hi,", "Hello there,", "Hey team,", "Good morning,", "Hi all --", "Dear support,", ""],
    closers=["Thanks!", "Cheers, {n}", "Thanks in advance :)", "Best regards,\n{n}", "Much appreciated!!", "Ta!",
             "Thanks ;-)", "-- {n}", "Kind regards | {n} | {c}"],
    search=["{p}", "{p} under {m}", "\"{p}\" black", "{p} size 10", "{p} & case", "best {p} 2025", "{p} vs {p}",
            "{p} for men's", "cheap {p} near {c}", "{p} (refurbished)", "{p} -used", "gift for mom's birthday"],
)

L["fr"] = dict(
    accept=["fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", "fr-CA,fr;q=0.9,en;q=0.8", "fr-BE,fr;q=0.9", "fr-CH,fr;q=0.9"],
    names=["Léa Martin", "Étienne Gagnon", "Chloé Dubois", "Mathéo Lefèvre", "Inès Bernard", "Hélène D'Arcy",
           "François Lemaître", "Zoé Fournier", "Loïc Mercier", "Océane Garnier"],
    cities=["Lyon", "Québec", "Bordeaux", "Lille", "Genève", "Nantes", "Montréal", "Aix-en-Provence", "Liège"],
    streets=["{k} rue de l'Église", "{k} bis, avenue Jean-Jaurès", "{k} place d'Italie", "{k} chemin des Écoliers",
             "Bât. B, {k} rue Saint-Honoré"],
    products=["housse de coussin", "bouilloire", "veste imperméable", "cafetière à piston", "lampe de chevet",
              "chaussures de randonnée", "plaid en laine", "poêle en fonte", "sac à dos", "vélo électrique"],
    money=["{a},{b} €", "{a} €", "{a},{b} EUR", "CHF {a}.{b}", "{a},{b} $ CA"],
    t=["{h}h{mi}", "{h} h", "midi", "{h}:{mi}"],
    templates=[
        "J'ai réservé une table pour {k} personnes à {t} ; est-il possible de décaler d'une demi-heure ?",
        "L'appli plante depuis la dernière mise à jour (v{k}.{k}) -- impossible d'ouvrir mon panier.",
        "Nous arrivons vers {t} à {c}, l'accueil est-il ouvert tard le soir ?",
        'Super atelier hier ! Est-ce que les supports seront envoyés par e-mail ?',
        'Je ne trouve pas la facture de {m} dans Mon compte > Commandes, où est-elle ?',
        "J'ai reçu ma commande n° {o} mais il manque la {p}.",
        "Pourriez-vous me l'envoyer ou me rembourser ?",
        "Très bon produit, livraison rapide ; seul bémol : l'emballage était un peu abîmé.",
        "La {p} coûte {m} ici, mais {m} chez un concurrent... vous alignez les prix ?",
        "Je serai absente jusqu'à {t}, le livreur peut-il sonner chez la gardienne (porte n° {k}) ?",
        "Ma nouvelle adresse : {s}, {c}.",
        "Est-ce que la « {p} » existe en bleu marine ?",
        "Franchement, rapport qualité/prix imbattable -- je recommande !",
        "C'est la {k}e fois que je commande chez vous et jamais de souci :)",
        "Le colis indique « livré » à {t} mais je n'ai rien reçu ?!",
    ],
    openers=["Bonjour,", "Bonsoir,", "Salut,", "Madame, Monsieur,", ""],
    closers=["Merci d'avance !", "Cordialement,\n{n}", "Bonne journée :)", "Merci beaucoup -- {n}", "Bises"],
    search=["{p}", "{p} pas cher", "{p} « bio »", "{p} taille 38", "{p} & accessoires", "{p} livraison {c}",
            "idée cadeau fête des mères", "{p} (occasion)"],
)

L["de"] = dict(
    accept=["de-DE,de;q=0.9,en;q=0.8", "de-AT,de;q=0.9", "de-CH,de;q=0.9,fr;q=0.8,en;q=0.7"],
    names=["Jürgen Weiß", "Anna Größl", "Lukas Schäfer", "Sophie Bäcker", "Maximilian Krüger", "Jana Hoffmann",
           "Özlem Demir", "Felix Müller-Lüdenscheidt", "Katrin Vogel"],
    cities=["München", "Graz", "Köln", "Zürich", "Düsseldorf", "Leipzig", "Hamburg", "Wien", "Freiburg i. Br."],
    streets=["Schönfeldstraße {k}", "Hauptstr. {k}a", "Am Mühlbach {k}", "Königsallee {k}, 3. OG",
             "Bahnhofplatz {k} / Hinterhaus"],
    products=["Regenjacke", "Wasserkocher", "Schreibtischlampe", "Wanderschuhe", "Kaffeemühle", "Wolldecke",
              "Gusseisenpfanne", "Kinderfahrrad", "Bluetooth-Lautsprecher", "Spülmaschinentabs (100 Stk.)"],
    money=["{a},{b} €", "{a},- €", "EUR {a},{b}", "CHF {a}.{b}", "{a} Euro"],
    t=["{h}:{mi} Uhr", "{h} Uhr", "halb {h}", "{h}.{mi} Uhr"],
    templates=[
        'Wir haben einen Tisch für {k} Personen um {t} reserviert -- geht auch eine halbe Stunde später?',
        'Seit dem letzten Update (v{k}.{k}) stürzt die App beim Öffnen des Warenkorbs ab.',
        'Unser Zug kommt erst um {t} in {c} an; ist die Rezeption so spät noch besetzt?',
        'Toller Workshop gestern! Bekommen wir die Folien (PDF) noch per Mail?',
        'Ich finde die Rechnung über {m} nicht unter „Mein Konto > Bestellungen“ -- wo liegt sie?',
        "Ich möchte meine Lieferadresse ändern: {s}, {c}.",
        "Die Größe passt perfekt, aber die Farbe ist dunkler als auf dem Foto.",
        "Bestellung Nr. {o} -- wann wird sie verschickt?",
        "Die {p} kostet jetzt {m}; letzte Woche waren es noch {m}?!",
        "Bitte nicht vor {t} liefern, ich bin bis dahin im Büro.",
        "Qualität top, Versand schnell; würde ich jederzeit wieder kaufen.",
        "Gibt es die „{p}“ auch in Schwarz/Anthrazit?",
        "Leider ist beim Auspacken ein Teil abgebrochen (siehe Foto).",
        "Kann ich per Rechnung bzw. PayPal zahlen?",
        "Das Paket liegt seit {k} Tagen im Verteilzentrum -- was ist da los?",
    ],
    openers=["Guten Tag,", "Hallo,", "Moin,", "Sehr geehrte Damen und Herren,", "Servus,", ""],
    closers=["Vielen Dank!", "Mit freundlichen Grüßen\n{n}", "Danke & LG", "Grüße aus {c}", "VG {n}"],
    search=["{p}", "{p} günstig", "{p} „Testsieger“", "{p} Größe 42", "{p} & Zubehör", "{p} gebraucht",
            "Geschenk für Oma", "{p} (B-Ware)"],
)

L["es"] = dict(
    accept=["es-ES,es;q=0.9", "es-MX,es;q=0.9,en;q=0.8", "es-AR,es;q=0.9", "es-CO,es;q=0.9,en;q=0.8"],
    names=["José Ramírez", "María Fernanda López", "Lucía Martín", "Álvaro Núñez", "Sofía Peña", "Íñigo Zubiría",
           "Camila Rodríguez", "Martín Gómez"],
    cities=["Sevilla", "Guadalajara", "Bogotá", "Valencia", "Buenos Aires", "Málaga", "Monterrey", "A Coruña"],
    streets=["Calle Mayor, {k}, 3º izq.", "Av. de la Constitución {k}", "C/ San Fernando {k}, bajo",
             "Paseo de Gracia {k}, 2º 1ª", "Col. Roma Norte, calle Córdoba {k}"],
    products=["mesa de roble", "zapatillas", "cafetera italiana", "mochila", "lámpara de pie", "funda del móvil",
              "colchón viscoelástico", "silla de oficina", "sartén antiadherente"],
    money=["{a},{b} €", "${a}", "{a} pesos", "MXN {a}", "{a},{b} EUR"],
    t=["las {h}:{mi}", "las {h}", "mediodía", "{h}:{mi} h"],
    templates=[
        'Reservé mesa para {k} a {t}; ¿podemos pasarla media hora más tarde?',
        'Desde la última actualización (v{k}.{k}) la app se cierra sola al pagar.',
        'Llegamos a {c} sobre {t}, ¿la recepción está abierta 24 h?',
        '¡Genial el taller de ayer! ¿Compartiréis las diapositivas?',
        'No encuentro la factura de {m} en Mi cuenta > Pedidos; ¿dónde está?',
        "¿Tienen la {p} en otro color?",
        "¡Excelente atención! Me respondieron en menos de una hora.",
        "El pedido n.º {o} llegó con una costura suelta; ¿pueden cambiarlo?",
        "Mi dirección nueva es {s}, {c}.",
        "Pagué {m} y el envío costó {m} -- ¿no era gratis a partir de {m}?",
        "No estaré en casa hasta {t}, ¿pueden dejarlo en portería?",
        "La \"{p}\" es preciosa, aunque un poco más pequeña de lo que pensaba.",
        "Lo recomiendo 100% :) ya es mi {k}º pedido.",
    ],
    openers=["¡Hola!", "Buenas tardes,", "Buenos días:", "Estimados:", ""],
    closers=["Gracias.", "Saludos, {n}", "¡Muchas gracias!", "Un abrazo desde {c}", "Quedo atento/a."],
    search=["{p}", "{p} barata", "{p} envío gratis", "{p} talla 40", "{p} y accesorios", "regalo día del padre",
            "{p} (reacondicionada)"],
)

L["pt"] = dict(
    accept=["pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7", "pt-PT,pt;q=0.9,en;q=0.8"],
    names=["João Silva", "Ana Beatriz Souza", "Luís Gonçalves", "Mariana Conceição", "Thiago Araújo",
           "Inês Magalhães"],
    cities=["São Paulo", "Campinas", "Lisboa", "Porto", "Belo Horizonte", "Florianópolis", "Recife"],
    streets=["Rua Augusta, {k} - apto {k}", "Av. Paulista, {k}, conj. {k}", "Rua de Santa Catarina {k}, 2º Esq.",
             "Travessa do Carmo {k}"],
    products=["fone de ouvido", "cadeira gamer", "panela de pressão", "tênis de corrida", "capinha do celular",
              "liquidificador", "mochila escolar", "luminária"],
    money=["R$ {a},{b}", "R$ {a}", "{a},{b} €", "{a} reais"],
    t=["{h}h{mi}", "{h}h", "{h}:{mi}"],
    templates=[
        'Reservei uma mesa para {k} pessoas para as {t}; dá para mudar para meia hora depois?',
        'Depois da última atualização (v{k}.{k}) o app fecha sozinho no checkout.',
        'Chegamos em {c} por volta das {t}; a recepção funciona 24h?',
        'Não acho a nota fiscal de {m} em Minha conta > Pedidos, onde fica?',
        "Gostaria de saber se vocês entregam em {c} e qual é o prazo.",
        "O pagamento por Pix tem desconto?",
        "Meu pedido #{o} veio com defeito; a tampa não fecha direito.",
        "Paguei {m} no {p} e chegou em {k} dias, super rápido!",
        "Endereço novo: {s}, {c} -- CEP {k}-{k}.",
        "Estarei fora até as {t}; pode deixar com o porteiro?",
        "Produto \"top\", recomendo demais <3",
        "Vocês parcelam em {k}x sem juros?",
    ],
    openers=["Olá,", "Oi!", "Bom dia,", "Boa tarde, pessoal,", ""],
    closers=["Obrigado!", "Obrigada :)", "Abraços, {n}", "Att., {n}", "Valeu!"],
    search=["{p}", "{p} barato", "{p} frete grátis", "{p} promoção", "{p} & kit", "presente dia das mães"],
)

L["it"] = dict(
    accept=["it-IT,it;q=0.9,en;q=0.8", "it-CH,it;q=0.9"],
    names=["Giulia Rossi", "Niccolò Bianchi", "Francesca D'Angelo", "Lorenzo Esposito", "Chiara Ricci"],
    cities=["Bologna", "Milano", "Napoli", "Torino", "Firenze", "Bari", "Lugano"],
    streets=["Via dell'Indipendenza {k}", "Corso Buenos Aires {k}, int. {k}", "Piazza San Marco {k}",
             "Viale Monza {k}/B"],
    products=["moka", "giacca impermeabile", "lampada da tavolo", "scarpe da trekking", "frullatore",
              "zaino", "borraccia termica", "tappetino yoga"],
    money=["{a},{b} €", "€ {a}", "{a} euro"],
    t=["le {h}:{mi}", "le {h}", "mezzogiorno"],
    templates=[
        "Ho prenotato un tavolo per {k} per {t}; possiamo spostarlo di mezz'ora?",
        "Dopo l'ultimo aggiornamento (v{k}.{k}) l'app si chiude da sola al pagamento.",
        'Arriviamo a {c} verso {t}: la reception è aperta 24 ore su 24?',
        "Non trovo la fattura da {m} in Il mio account > Ordini; dov'è?",
        "L'ordine n. {o} è arrivato ieri ma la taglia è sbagliata.",
        "Come posso fare il cambio? Ho scelto la {k} e mi è arrivata la {k}.",
        "La {p} è fantastica, però costa {m}: c'è uno sconto per chi è già cliente?",
        "Nuovo indirizzo: {s}, {c}.",
        "Sarò a casa dopo {t}; il corriere può citofonare a \"Rossi/Bianchi\"?",
        "Spedizione velocissima -- consigliato!!",
        "Perché l'app dice 'in lavorazione' da {k} giorni?",
    ],
    openers=["Buongiorno,", "Ciao,", "Salve,", "Gentile assistenza,", ""],
    closers=["Grazie mille.", "Cordiali saluti, {n}", "Grazie :)", "A presto!"],
    search=["{p}", "{p} offerta", "{p} economica", "{p} taglia M", "regalo per lui"],
)

L["pl"] = dict(
    accept=["pl-PL,pl;q=0.9,en-US;q=0.8,en;q=0.7"],
    names=["Małgorzata Wójcik", "Paweł Zieliński", "Zofia Krawczyk", "Łukasz Wiśniewski", "Agnieszka Dąbrowska"],
    cities=["Kraków", "Warszawa", "Gdańsk", "Wrocław", "Łódź", "Poznań"],
    streets=["ul. Floriańska {k}/{k}", "al. Jerozolimskie {k} m. {k}", "os. Słoneczne {k}", "ul. Piotrkowska {k}"],
    products=["krzesło biurowe", "czajnik", "kurtka przeciwdeszczowa", "buty trekkingowe", "młynek do kawy",
              "plecak", "lampka nocna"],
    money=["{a},{b} zł", "{a} zł", "PLN {a}"],
    t=["{h}:{mi}", "godz. {h}", "południe"],
    templates=[
        'Zarezerwowałem stolik dla {k} osób na {t}; czy można przesunąć o pół godziny?',
        'Od ostatniej aktualizacji (v{k}.{k}) aplikacja zamyka się przy płatności.',
        'Przyjeżdżamy do miasta {c} około {t}; czy recepcja jest czynna całą dobę?',
        'Nie mogę znaleźć faktury na {m} w zakładce Moje konto > Zamówienia.',
        "Zamówiłam {p} tydzień temu i nadal czeka na wysyłkę.",
        "Czy mogą Państwo sprawdzić zamówienie nr {o}?",
        "Nowy adres: {s}, {c}.",
        "Cena {m} to okazja -- polecam!",
        "Kurier może przyjść po {t}? Wcześniej jestem w pracy.",
        "Produkt zgodny z opisem; szybka wysyłka :)",
        "Czy „{p}” jest dostępne w kolorze szarym?",
    ],
    openers=["Dzień dobry,", "Cześć,", "Witam,", ""],
    closers=["Pozdrawiam serdecznie.", "Dziękuję!", "Z poważaniem, {n}", "Pozdro!"],
    search=["{p}", "{p} tanio", "{p} promocja", "{p} rozmiar 44", "prezent na dzień matki"],
)

L["ru"] = dict(
    accept=["ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru,en;q=0.9"],
    names=["Наталья Смирнова", "Дмитрий Иванов", "Анна Кузнецова", "Сергей Попов", "Екатерина Волкова"],
    cities=["Санкт-Петербург", "Москва", "Казань", "Новосибирск", "Екатеринбург"],
    streets=["ул. Ленина, д. {k}, кв. {k}", "Невский пр-т, {k}", "пер. Сивцев Вражек, {k}, стр. {k}"],
    products=["диван", "чайник", "куртка", "кроссовки", "кофемолка", "рюкзак", "настольная лампа"],
    money=["{a} ₽", "{a} руб.", "{a},{b} ₽"],
    t=["{h}:{mi}", "{h} часов", "полдень"],
    templates=[
        'Забронировал столик на {k} человек на {t}; можно перенести на полчаса позже?',
        'После последнего обновления (v{k}.{k}) приложение вылетает при оплате.',
        'Мы приезжаем в город {c} около {t}; ресепшен работает круглосуточно?',
        'Не могу найти счёт на {m} в разделе «Мой аккаунт → Заказы».',
        "Подскажите, пожалуйста, есть ли {p} в сером цвете?",
        "Сколько стоит доставка до города {c}?",
        "Заказ № {o} до сих пор «в обработке» -- это нормально?",
        "Новый адрес: {s}, {c}.",
        "Цена {m}, а на сайте было {m}; почему так?",
        "Буду дома после {t}, курьер может позвонить заранее?",
        "Всё пришло целым, качество отличное :)",
    ],
    openers=["Здравствуйте!", "Добрый день,", "Привет,", ""],
    closers=["Спасибо.", "С уважением, {n}", "Заранее спасибо!", "Спасибо :)"],
    search=["{p}", "{p} недорого", "{p} купить {c}", "{p} со скидкой", "подарок на 8 марта"],
)

L["tr"] = dict(
    accept=["tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7"],
    names=["Ayşe Yılmaz", "Mehmet Öztürk", "Elif Çelik", "Burak Şahin", "Zeynep Güneş"],
    cities=["İzmir", "İstanbul", "Ankara", "Bursa", "Antalya", "Eskişehir"],
    streets=["Atatürk Cad. No: {k} D: {k}", "Bağdat Cd. {k}/{k} Kadıköy", "Kıbrıs Şehitleri Cd. No:{k}"],
    products=["kulaklık", "çaydanlık", "yağmurluk", "spor ayakkabı", "kahve makinesi", "sırt çantası"],
    money=["{a},{b} TL", "₺{a}", "{a} TL"],
    t=["{h}:{mi}", "saat {h}", "öğlen"],
    templates=[
        'Saat {t} için {k} kişilik masa ayırttım; yarım saat sonraya alabilir miyiz?',
        'Son güncellemeden (v{k}.{k}) beri uygulama ödeme ekranında kapanıyor.',
        "Yaklaşık {t} gibi {c} otogarına varıyoruz; resepsiyon 24 saat açık mı?",
        '{m} tutarındaki faturayı Hesabım > Siparişler altında bulamıyorum.',
        "Siparişim (#{o}) iki gündür kargoda görünüyor ama hâlâ teslim edilmedi.",
        "Kargo takip numarasını paylaşabilir misiniz?",
        "{p} {m} ama indirim kodu çalışmıyor?",
        "Yeni adresim: {s}, {c}.",
        "Saat {t}'den sonra evdeyim; kapıcıya bırakabilirsiniz.",
        "Ürün çok kaliteli, tavsiye ederim :)",
    ],
    openers=["Merhaba,", "İyi günler,", "Selam,", ""],
    closers=["Teşekkürler.", "Saygılarımla, {n}", "Şimdiden teşekkürler!", "Kolay gelsin."],
    search=["{p}", "{p} ucuz", "{p} indirim", "{p} & kılıf", "anneler günü hediye"],
)

L["ar"] = dict(
    accept=["ar-EG,ar;q=0.9,en;q=0.8", "ar-SA,ar;q=0.9,en-US;q=0.8", "ar-MA,ar;q=0.9,fr;q=0.8"],
    names=["محمد عبد الله", "فاطمة الزهراء", "يوسف حداد", "ليلى منصور", "عمر الخطيب"],
    cities=["القاهرة", "الرياض", "دبي", "عمّان", "الدار البيضاء", "بيروت"],
    streets=["شارع التحرير رقم {k}", "حي النزهة، عمارة {k}، شقة {k}", "طريق الملك فهد {k}"],
    products=["حقيبة ظهر", "سماعات", "غلاية", "حذاء رياضي", "مصباح مكتب", "ماكينة قهوة"],
    money=["{a} ج.م", "{a} ر.س", "{a} درهم", "${a}"],
    t=["الساعة {h}:{mi}", "الساعة {h}", "الظهر"],
    templates=[
        'حجزت طاولة لـ {k} أشخاص {t}، هل يمكن تأجيلها نصف ساعة؟',
        'بعد آخر تحديث (v{k}.{k}) يغلق التطبيق عند الدفع.',
        'سنصل إلى {c} حوالي {t}، هل الاستقبال مفتوح على مدار الساعة؟',
        'لا أجد فاتورة {m} في حسابي > الطلبات.',
        "طلبت {p} منذ أسبوع ولم تصل بعد.",
        "هل يمكنكم إرسال رقم التتبع للطلب رقم {o}؟",
        "السعر {m} - هل يوجد خصم؟",
        "عنواني الجديد: {s}، {c}.",
        "سأكون في البيت بعد {t}.",
        "منتج ممتاز، أنصح به بشدة :)",
    ],
    openers=["مرحباً،", "السلام عليكم،", "مساء الخير،", ""],
    closers=["شكراً جزيلاً.", "مع التحية، {n}", "شكراً لكم!"],
    search=["{p}", "{p} رخيص", "{p} توصيل مجاني", "هدية عيد الأم"],
)

L["he"] = dict(
    accept=["he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7"],
    names=["נועה כהן", "איתי לוי", "מיכל אברהם", "יונתן פרץ"],
    cities=["תל אביב", "ירושלים", "חיפה", "באר שבע"],
    streets=["רחוב הרצל {k}, דירה {k}", "שדרות רוטשילד {k}", "רח' בן יהודה {k}"],
    products=["מעיל", "אוזניות", "קומקום", "נעלי ריצה", "תיק גב"],
    money=["₪{a}", "{a} ש\"ח", "{a}.{b} ₪"],
    t=["{h}:{mi}", "בשעה {h}"],
    templates=[
        'הזמנתי שולחן ל-{k} אנשים ב-{t}, אפשר לדחות בחצי שעה?',
        'מאז העדכון האחרון (v{k}.{k}) האפליקציה נסגרת בתשלום.',
        'אנחנו מגיעים ל{c} בסביבות {t}, הקבלה פתוחה 24/7?',
        'לא מוצאת את החשבונית על {m} בחשבון שלי > הזמנות.',
        "רציתי לשאול אם אפשר להחליף את ה{p} במידה אחרת.",
        "הזמנה מס' {o} עדיין לא הגיעה.",
        "המחיר {m} -- יש קופון?",
        "הכתובת החדשה: {s}, {c}.",
        "אני בבית אחרי {t}.",
        "שירות מעולה, ממליצה בחום :)",
    ],
    openers=["שלום,", "היי,", "ערב טוב,", ""],
    closers=["תודה!", "תודה רבה, {n}", "בברכה, {n}"],
    search=["{p}", "{p} במבצע", "{p} משלוח חינם", "מתנה ליום הולדת"],
)

L["hi"] = dict(
    accept=["hi-IN,hi;q=0.9,en-IN;q=0.8,en;q=0.7"],
    names=["प्रिया शर्मा", "राहुल वर्मा", "अनीता गुप्ता", "विकास सिंह"],
    cities=["जयपुर", "दिल्ली", "मुंबई", "लखनऊ", "पुणे"],
    streets=["मकान नं. {k}, सेक्टर {k}", "{k}, एम.जी. रोड", "फ्लैट {k}, गांधी नगर"],
    products=["हेडफ़ोन", "कुर्ता", "प्रेशर कुकर", "जूते", "बैग", "मोबाइल कवर"],
    money=["₹{a}", "₹ {a}.{b}", "{a} रुपये", "Rs. {a}/-"],
    t=["{h}:{mi} बजे", "{h} बजे", "दोपहर"],
    templates=[
        'मैंने {t} के लिए {k} लोगों की टेबल बुक की है; क्या इसे आधा घंटा आगे कर सकते हैं?',
        'पिछले अपडेट (v{k}.{k}) के बाद से ऐप पेमेंट पर बंद हो जाता है।',
        'हम {c} लगभग {t} पहुँचेंगे; क्या रिसेप्शन 24 घंटे खुला है?',
        '{m} का बिल मेरे अकाउंट > ऑर्डर में नहीं मिल रहा।',
        "मेरा ऑर्डर #{o} अभी तक नहीं आया है।",
        "कृपया बताइए कि डिलीवरी कब तक होगी।",
        "{p} की कीमत {m} है, क्या कोई छूट है?",
        "नया पता: {s}, {c}।",
        "मैं {t} के बाद घर पर रहूँगी।",
        "बहुत अच्छा प्रोडक्ट, धन्यवाद :)",
    ],
    openers=["नमस्ते,", "नमस्कार,", "हैलो,", ""],
    closers=["धन्यवाद!", "शुक्रिया, {n}", "आपका, {n}"],
    search=["{p}", "{p} सस्ता", "{p} ऑफर", "दिवाली गिफ्ट"],
)

L["zh"] = dict(
    accept=["zh-CN,zh;q=0.9,en;q=0.8", "zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", "zh-HK,zh;q=0.9"],
    names=["王芳", "李伟", "陈志明", "张静", "刘洋"],
    cities=["上海", "北京", "台北", "深圳", "杭州", "成都"],
    streets=["浦东新区世纪大道{k}号{k}室", "中山路{k}号", "信义路五段{k}号{k}楼"],
    products=["台灯", "背包", "耳机", "咖啡机", "运动鞋", "保温杯", "手机壳"],
    money=["¥{a}", "{a}元", "NT${a}", "￥{a}.{b}"],
    t=["{h}点{mi}分", "{h}点", "中午"],
    templates=[
        '我订了{t}的{k}人桌，可以推迟半小时吗？',
        '更新到v{k}.{k}之后，App在付款页面会闪退。',
        '我们大概{t}到{c}，前台是24小时营业吗？',
        '在“我的账户 > 订单”里找不到{m}的发票。',
        "你好，我上周买的{p}今天到了，但是开关有点松。",
        "请问可以换一个吗？订单号：{o}",
        "这款{p}有没有防水功能？",
        "价格{m}，比上次贵了{m}……",
        "新地址：{c}{s}。",
        "我{t}以后在家，麻烦快递员先打电话。",
        "质量很好，五星好评！(^_^)",
    ],
    openers=["你好，", "您好！", "请问，", ""],
    closers=["谢谢！", "谢谢回覆。", "麻烦了～", "{n}"],
    search=["{p}", "{p} 便宜", "{p} 包邮", "{p} 黑色", "送女朋友礼物"],
)

L["ja"] = dict(
    accept=["ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", "ja,en-US;q=0.9,en;q=0.8"],
    names=["佐藤 健", "鈴木 花子", "高橋 翔", "田中 美咲", "渡辺 大輔"],
    cities=["大阪", "東京", "札幌", "福岡", "名古屋", "京都"],
    streets=["大阪市北区梅田{k}-{k}-{k}", "東京都渋谷区神南{k}-{k}", "〒{k}-{k} 札幌市中央区北{k}条西{k}丁目"],
    products=["コーヒーミル", "電気ケトル", "リュック", "ワイヤレスイヤホン", "スニーカー", "加湿器"],
    money=["¥{a}", "{a}円", "￥{a}(税込)"],
    t=["{h}時{mi}分", "{h}時", "午後{h}時"],
    templates=[
        '{t}に{k}名で予約しましたが、30分遅らせることはできますか？',
        '最新版(v{k}.{k})にしてから、決済画面でアプリが落ちます。',
        '{c}には{t}ごろ到着予定です。フロントは24時間対応ですか？',
        'マイページ > 注文履歴に{m}の領収書が見つかりません。',
        "先日注文した{p}が届きました。とても使いやすいです！",
        "説明書が英語だけだったので、日本語版があれば送っていただけますか。",
        "注文番号{o}の配送状況を教えてください。",
        "{p}は{m}ですが、クーポンは使えますか？",
        "住所変更：{s}（{c}）",
        "{t}以降なら在宅しています。",
        "リピートします♪ (^^)",
    ],
    openers=["こんにちは。", "お世話になっております。", "すみません、", ""],
    closers=["よろしくお願いします。", "ありがとうございます！", "{n}"],
    search=["{p}", "{p} 安い", "{p} おすすめ", "{p} 送料無料", "母の日 プレゼント"],
)

L["ko"] = dict(
    accept=["ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7"],
    names=["김민준", "이서연", "박지훈", "최유진"],
    cities=["서울", "부산", "인천", "대구"],
    streets=["강남구 테헤란로 {k}, {k}호", "해운대구 우동 {k}-{k}", "마포구 양화로 {k}길 {k}"],
    products=["운동화", "무선 이어폰", "전기포트", "백팩", "가습기"],
    money=["{a}원", "₩{a}", "{a},000원"],
    t=["{h}시 {mi}분", "{h}시", "오후 {h}시"],
    templates=[
        '{t}에 {k}명 예약했는데 30분 늦출 수 있을까요?',
        '최신 업데이트(v{k}.{k}) 이후 결제 화면에서 앱이 꺼져요.',
        '{c}에 {t}쯤 도착하는데 프런트는 24시간 운영하나요?',
        '내 계정 > 주문 내역에서 {m} 영수증을 못 찾겠어요.',
        "주문한 {p} 사이즈를 270에서 275로 바꿀 수 있을까요?",
        "아직 배송 전이면 부탁드립니다. 주문번호 {o}",
        "{p} 가격이 {m}인데 할인 쿠폰 적용되나요?",
        "새 주소: {c} {s}",
        "{t} 이후에 집에 있어요.",
        "배송 빠르고 품질 좋아요 ㅎㅎ",
    ],
    openers=["안녕하세요.", "수고하십니다.", ""],
    closers=["감사합니다!", "감사합니다 :)", "{n} 드림"],
    search=["{p}", "{p} 최저가", "{p} 무료배송", "어버이날 선물"],
)

L["vi"] = dict(
    accept=["vi-VN,vi;q=0.9,en-US;q=0.8,en;q=0.7"],
    names=["Nguyễn Thị Lan", "Trần Văn Minh", "Lê Hoàng Anh", "Phạm Thu Hà"],
    cities=["Hà Nội", "TP. Hồ Chí Minh", "Đà Nẵng", "Huế"],
    streets=["Số {k} ngõ {k} Phố Huế", "{k} Nguyễn Huệ, Q.1", "{k}/{k} Lê Lợi"],
    products=["áo khoác", "tai nghe", "ấm đun nước", "giày thể thao", "ba lô"],
    money=["{a}.000đ", "{a}.000 ₫", "{a}k"],
    t=["{h}h{mi}", "{h} giờ", "{h}h"],
    templates=[
        'Mình đặt bàn {k} người lúc {t}, lùi lại nửa tiếng được không ạ?',
        'Từ bản cập nhật v{k}.{k} app bị thoát khi thanh toán.',
        'Tụi mình tới {c} khoảng {t}, lễ tân có trực 24/24 không?',
        "Chào shop, mình muốn đổi {p} sang màu xanh được không ạ?",
        "Đơn hàng #{o} bao giờ giao vậy shop?",
        "Giá {m} có kèm phí ship không ạ?",
        "Địa chỉ mới: {s}, {c}.",
        "Sau {t} mình mới ở nhà nhé.",
        "Hàng đẹp, giao nhanh, 10 điểm <3",
    ],
    openers=["Chào shop,", "Dạ cho mình hỏi,", ""],
    closers=["Cảm ơn shop nhiều!", "Thanks shop ạ", "{n}"],
    search=["{p}", "{p} giá rẻ", "{p} chính hãng", "quà tặng 20/10"],
)

L["th"] = dict(
    accept=["th-TH,th;q=0.9,en;q=0.8"],
    names=["สมชาย ใจดี", "สุนิสา แก้วมณี", "ณัฐพล ศรีสุข"],
    cities=["เชียงใหม่", "กรุงเทพฯ", "ภูเก็ต", "ขอนแก่น"],
    streets=["{k}/{k} ถ.สุขุมวิท ซอย {k}", "{k} หมู่ {k} ต.สุเทพ"],
    products=["หูฟัง", "กระเป๋าเป้", "กาต้มน้ำ", "รองเท้าวิ่ง", "เคสโทรศัพท์"],
    money=["฿{a}", "{a} บาท"],
    t=["{h}:{mi} น.", "{h} โมง"],
    templates=[
        'จองโต๊ะ {k} ที่ไว้ตอน {t} เลื่อนไปอีกครึ่งชั่วโมงได้ไหมคะ',
        'หลังอัปเดตเวอร์ชัน v{k}.{k} แอปปิดเองตอนจ่ายเงิน',
        'จะถึง{c}ประมาณ {t} แผนกต้อนรับเปิด 24 ชั่วโมงไหมครับ',
        "สินค้าได้รับแล้ว คุณภาพดีมาก ส่งไวด้วย",
        "คำสั่งซื้อ #{o} จัดส่งเมื่อไหร่คะ",
        "{p} ราคา {m} มีส่วนลดไหมครับ",
        "ที่อยู่ใหม่: {s} {c}",
        "อยู่บ้านหลัง {t} ค่ะ",
    ],
    openers=["สวัสดีครับ", "สวัสดีค่ะ", ""],
    closers=["ขอบคุณครับ", "ขอบคุณค่ะ :)", "{n}"],
    search=["{p}", "{p} ราคาถูก", "{p} ส่งฟรี"],
)

L["el"] = dict(
    accept=["el-GR,el;q=0.9,en;q=0.8"],
    names=["Γιώργος Παπαδόπουλος", "Μαρία Κωνσταντίνου", "Νίκος Αθανασίου"],
    cities=["Θεσσαλονίκη", "Αθήνα", "Πάτρα", "Ηράκλειο"],
    streets=["Οδός Εγνατίας {k}", "Λεωφ. Κηφισίας {k}, {k}ος όροφος", "Ερμού {k}"],
    products=["σακίδιο", "ακουστικά", "βραστήρας", "παπούτσια πεζοπορίας", "φωτιστικό"],
    money=["{a},{b} €", "€{a}"],
    t=["{h}:{mi}", "{h}", "{h}.{mi}"],
    templates=[
        'Κλείσαμε τραπέζι για {k} άτομα στις {t}· γίνεται μισή ώρα αργότερα;',
        'Μετά την τελευταία ενημέρωση (v{k}.{k}) η εφαρμογή κλείνει στην πληρωμή.',
        'Φτάνουμε στη {c} γύρω στις {t}· η ρεσεψιόν είναι ανοιχτή όλο το 24ωρο;',
        "Θα ήθελα να μάθω αν το {p} είναι διαθέσιμο σε μεγαλύτερο μέγεθος.",
        "Η παραγγελία #{o} δεν έχει φτάσει ακόμα;",
        "Η τιμή είναι {m} -- ισχύει η έκπτωση;",
        "Νέα διεύθυνση: {s}, {c}.",
        "Είμαι σπίτι μετά τις {t}.",
        "Τέλειο προϊόν, το προτείνω :)",
    ],
    openers=["Καλησπέρα σας,", "Γεια σας,", ""],
    closers=["Ευχαριστώ πολύ!", "Με εκτίμηση, {n}"],
    search=["{p}", "{p} φθηνό", "{p} προσφορά"],
)

LANGUAGES = list(L)


def _fill(rng, lang, template, depth=0):
    d = L[lang]
    out = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "{" and template.find("}", i) > 0:
            j = template.index("}", i)
            key = template[i + 1:j]
            i = j + 1
            if key == "p":
                out.append(pick(rng, d["products"]))
            elif key == "c":
                out.append(pick(rng, d["cities"]))
            elif key == "n":
                out.append(pick(rng, d["names"]))
            elif key == "k":
                out.append(str(pick(rng, [rng.randint(1, 12), rng.randint(2, 99), rng.randint(10, 400)])))
            elif key == "o":
                out.append(pick(rng, [str(rng.randint(10000, 999999)), f"{rng.randint(100, 999)}-{rng.randint(1000000, 9999999)}",
                                      f"A{rng.randint(1000, 99999)}"]))
            elif key == "m" and depth == 0:
                money = pick(rng, d["money"])
                out.append(money.replace("{a}", str(pick(rng, [rng.randint(3, 99), rng.randint(100, 2500)])))
                           .replace("{b}", f"{pick(rng, [0, 49, 50, 90, 95, 99, rng.randint(0, 99)]):02d}"))
            elif key == "t" and depth == 0:
                t = pick(rng, d["t"])
                out.append(t.replace("{h}", str(rng.randint(1, 12))).replace("{mi}", f"{pick(rng, [0, 15, 30, 45, rng.randint(0, 59)]):02d}"))
            elif key == "s" and depth == 0:
                out.append(_fill(rng, lang, pick(rng, d["streets"]), depth + 1))
            else:
                out.append("{" + key + "}")
        else:
            out.append(ch)
            i += 1
    return "".join(out)


EXTRAS = [" :)", " :-)", " ;)", " :D", " <3", " ^^", " xD", " (:", " :(", " :/", " 🙂", " 🙏", " 👍", " 😅", " 😊",
          "!!", "?!", " ...", " +1", " (again)", " / thx", " | urgent", " #help", " & thanks"]


def sentence(rng, lang=None):
    lang = lang or pick(rng, LANGUAGES)
    return _fill(rng, lang, pick(rng, L[lang]["templates"]))


def prose(rng, lang=None, sentences=None):
    """A message of a few sentences in one language: opener, sentences, closer, sometimes an emoticon."""
    lang = lang or pick(rng, LANGUAGES)
    d = L[lang]
    n = sentences or rng.choice([1, 2, 2, 3, 3, 4, 5])
    parts = []
    op = pick(rng, d["openers"])
    if op and rng.random() < 0.7:
        parts.append(op)
    chosen = rng.sample(d["templates"], min(n, len(d["templates"])))
    for t in chosen:
        s = _fill(rng, lang, t)
        if rng.random() < 0.12:
            s += pick(rng, EXTRAS)
        parts.append(s)
    if rng.random() < 0.6:
        parts.append(_fill(rng, lang, pick(rng, d["closers"])))
    sep = pick(rng, [" ", " ", " ", "\n", "\n\n", "\r\n"])
    return sep.join(parts)


def search_query(rng, lang=None):
    lang = lang or pick(rng, LANGUAGES)
    return _fill(rng, lang, pick(rng, L[lang]["search"]))


def name(rng, lang=None):
    return pick(rng, L[lang or pick(rng, LANGUAGES)]["names"])


def city(rng, lang):
    return pick(rng, L[lang]["cities"])


def address(rng, lang):
    return _fill(rng, lang, pick(rng, L[lang]["streets"]), 1)


def product(rng, lang):
    return pick(rng, L[lang]["products"])


def accept_language(rng, lang):
    return pick(rng, L[lang]["accept"])


def title(rng, lang=None):
    """A short subject line: the first clause of a sentence."""
    lang = lang or pick(rng, LANGUAGES)
    s = sentence(rng, lang)
    for stop in (". ", "? ", "! ", "; ", "。", "？"):
        if stop in s:
            s = s.split(stop)[0]
    return s[:80]
