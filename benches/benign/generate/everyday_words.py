"""everyday-words.txt: ordinary prose in which the words that injection rules look for appear in their everyday
sense, sent everywhere text travels. People ask to "select" a size, "drop off" a parcel at "Union Street", "update"
an address, "delete" an account, review a film's "script", set an "alarm" or a "sleep" timer, feed the "cat", "ping"
a colleague, "exec"ute a plan, read the "system" requirements, "include" a gift note, "order by" Friday; they quote
labels of the interfaces they use ('Select all', "Delete"), give ranges and comparisons (1 or 2, < $20, 5-10 = ok),
write maths homework (A union B, x = 1 or x = 2) and describe computer trouble in words (the printer says
"access denied"). The sentences are written as customers, students, employees and forum members write them, with
their apostrophes, quotes, parentheses, semicolons, dashes and ampersands; nothing is chosen to avoid or to hit a
rule. Short texts too (a status, a title, a chat reply, a book's or a course's name: "cat is asleep on the keyboard
again", "JavaScript: The Good Parts"), where a command's or a keyword's name often comes first in its everyday
sense.

Where the text goes, as real sites carry it: search boxes (GET query strings, autocomplete calls, the search page as
the Referer of the next click, a recent-searches cookie), slugs of article, product and question URLs, HTML forms
(reviews, comments, contact and support forms; urlencoded and multipart), JSON bodies of chat, notes, task and
support APIs, and a few XML bodies (RSS-style comment feeds, SOAP notes of a help desk). Maths answers as exercise
sites and calculators take them (`sqrt(2)/2`, `3x^2 + 2x - 1`, `sin(x)^2 + cos(x)^2`), posted as an attempt's JSON or
typed into a calculator's search; questions and answers of maths Q&A sites and forums with their formulas in TeX
(`$f(x)=\\sin(1/x)$`, `$$...$$`, `\\(...\\)`, Codeforces' `$$$...$$$`), which the page typesets with MathJax or KaTeX.
"""
import random
import re
import urllib.parse

from .common import Corpus, alnum, cookie_header, email, fetch, form, form_post, hexid, host, jsonb, navigation, pick, qs, weighted

# Sentences by theme. Slots: {n} a small number, {t} a time, {m} an amount, {d} a date, {o} an order number.
SENTENCES = [
    # shopping and deliveries
    "Please select the size (S, M or L) before adding it to the cart -- the button stays grey otherwise.",
    "Can I drop off the return at your Union Street store, or does it have to go by post?",
    "Where do I update my billing address? I've tried Settings -> Account -> Payment and it's not there.",
    "How do I delete my account and all my data? I don't use the app anymore.",
    "My order #{o} says 'shipped' but the tracking page shows nothing since {d}; where is it?",
    "I'd like to insert a note in the gift box: 'Happy birthday, Mum! Love, J & K'.",
    "Order by Thursday {t} for delivery before the weekend, or is that only for Prime members?",
    "Select all that apply: vegetarian, vegan, gluten-free, none of the above.",
    "I was charged twice -- once at {t} and once a minute later (same amount, {m}).",
    "Is 'drop shipping' allowed on your marketplace, or do sellers have to hold stock?",
    "Can you group by colour in the filter? Sorting by price alone doesn't help much.",
    "The 'Delete' key on my new keyboard sticks; can I exchange it or do I need a repair?",
    "Where is the table lamp I ordered? The app says 'delivered' but it's not at my door or with my neighbours.",
    "Buy one, get one free -- does that include the sale items or only full-price ones?",
    "I selected 'express' at checkout but was charged for standard; please update the order.",
    "The drop-leaf table arrived with one leaf missing (order {o}).",
    "Cancel or update? I can't tell which one keeps my place in the queue.",
    "I ordered 2 packs by mistake; 1 is enough. Can you drop the second before it ships?",
    "The discount code SUMMER{n} says 'null or invalid'; it expired yesterday, right?",
    "Is the union jack cushion cover 45 x 45 cm or 50 x 50 cm?",
    "Where can I find the size chart? The one on the product page is for the old model (2019/2020).",
    "Please confirm the delivery window: {t} to 6 pm, or all day?",
    "Can I change the shipping method from 'Standard' to 'Next day' after paying?",
    "I'm having trouble applying two vouchers; does the system only take one per order?",
    "The invoice says 'VAT included' but the total doesn't add up: {m} + 20% != what I paid.",
    "It said 'In stock' when I ordered; now it's 'Backorder'. Which one is true?",
    "Bought the 3-in-1 cable (USB-C | Lightning | micro-USB); the micro end doesn't fit my speaker.",
    "Price < $20 and free shipping over $35 -- so I need one more item, right?",
    "Rate 5/5: fits well; union suit for winter camping, warmer than expected.",
    # food and restaurants
    "Is there a table for {n} at {t}? If not, 8:30 or 9 would work too.",
    "Drop the pasta into salted boiling water and cook for 8-10 minutes; drain, then add the sauce.",
    "Select your dishes from the set menu: 1 starter, 1 main & 1 dessert (or cheese).",
    "Grab the cat food from the top shelf -- the small tins, not the big bag.",
    "Add 1 or 2 tablespoons of sugar; 3 if you like it sweet.",
    "1 cup = 240 ml, so 2 cups = roughly half a litre.",
    "Mix the flour and the butter; then insert the dough into the fridge for 30 min.",
    "Can you update the allergy list? My daughter can't have nuts or sesame (not even traces).",
    "Where's the nearest exit from the food court? The signs point both ways.",
    "Order by 3 pm for same-day pickup; after that it's tomorrow at the earliest.",
    "Less is more with chilli -- start with half a teaspoon and taste.",
    "We ordered fish & chips; cat and dog treats were on the same bill by mistake.",
    "Table 12 asked: is the sauce made with or without wine?",
    "The soup was cold; the waiter said 'the system was down' and the kitchen lost our order.",
    "Sleep well after this tea: chamomile, lemon balm and a drop of honey.",
    # travel and places
    "Our train from Union Station leaves at {t}; is there luggage storage near the exit?",
    "Can we drop off the rental car at the airport instead of the city office?",
    "The hotel's alarm went off at 3 am -- a false alarm, but nobody told us what to do.",
    "Select 'Manage booking', then 'Change dates'; the price difference is shown before you confirm.",
    "Is the hostel's 'union room' (two doubles joined) available from {d} to the 14th?",
    "Where is the union between the old town and the harbour? The map shows a bridge but we couldn't find it.",
    "Top 10 things to do in Lisbon: trams, pastel de nata, fado & the view from the castle.",
    "The echo in the cathedral is amazing -- go at 9 before the tour groups.",
    "Delete my booking {o}, please; we found a flight that lands earlier.",
    "The gate changed from B12 to C4 and the screens still showed the old one; we almost missed it.",
    "Checkout time is 11, but can we leave our bags until {t}?",
    # work and school
    "The union voted to drop the complaint after management agreed to a 3% raise.",
    "Exec summary: Q3 revenue up 12%, costs flat; hiring freeze until January.",
    "Please insert your name and student ID in the header of every page.",
    "A union B is everything in A or in B (or both); A intersect B is what's in both.",
    "If x = 1 or x = 2, then x^2 - 3x + 2 = 0; check both values.",
    "Where 1 <= n <= 100, how many n satisfy n mod 7 = 3?",
    "Select the correct answer: (a) 12, (b) 14, (c) none of the above.",
    "Declare your income from 6 April to 5 April; the deadline is 31 January.",
    "Drop me a line when the report is ready -- no rush, Friday is fine.",
    "Please update the table in section 4; the figures are from last year's survey.",
    "The script for Friday's school play was rewritten; the cast had two days to learn it.",
    "Kill two birds with one stone: book the room and order the catering on the same form.",
    "Who's in? Head count by {t}, please -- lunch is on the company.",
    "Ping me when you're free; I'll share my screen and we can go through the numbers.",
    "Can HR confirm the exit interview date? I'm leaving on the 30th.",
    "Sort by last name, then by date of birth (oldest first).",
    "Find the error: 7 x 8 = 54.",
    "The professor's alert said the exam moved from room 204 to the main hall.",
    "Grant application due {d}; include a budget table and two references.",
    "Create an account with your university e-mail, not a personal one.",
    "Alter the hem by 2 cm and take in the waist -- quote for both, please.",
    "The system requirements say Windows 10 or later, 8 GB RAM, and 20 GB free.",
    "Group work: groups of 3 or 4; one submission per group, by 5 pm.",
    "Truncate the decimals to 2 places, don't round (3.14159 -> 3.14).",
    # home, family, health
    "Set the alarm for 6:30; the sleep timer turns the radio off after 30 minutes.",
    "Cat sitter needed from the 1st to the 14th: 2 cats, 1 very shy (hides under the bed).",
    "Our boiler's timer is set from 6 to 8 and 5 to 10 -- is that why the water's cold at noon?",
    "Curl your hair around the wand for 5 seconds, then let it cool before brushing.",
    "The tail of our dog was caught in the door; the vet says it's just bruised.",
    "Head, shoulders, knees and toes -- the kids' favourite song this week.",
    "Less sugar, more sleep, and a walk after dinner: my doctor's 'prescription'.",
    "Can I update my GP's details? We moved from 12 Union Road to Elm Close.",
    "Who's picking up the kids at 3:15? I have a meeting until 4.",
    "My son's history class is about the Union and the Confederacy (1861-1865).",
    "Insert tab A into slot B, then fold along the dotted line -- the instructions skip this step.",
    "Between 5 and 10 drops of lavender oil in the bath, not more.",
    "The smoke alarm beeps every 30 seconds; the battery is new (9V). What else could it be?",
    "Baby sleeps from 7 pm to 5 am; is that too early to start the day?",
    "Rm 3 needs a new light bulb (E27, warm white).",
    # technology described in words
    "After the update, Excel crashes when I select a cell with a formula like =SUM(A1:A10).",
    "Our printer says 'Error 0x80070005: access denied' when I print from the shared drive.",
    "The VPN drops every 10 minutes; ping to the office shows 300 ms and then 'request timed out'.",
    "How do I delete the old backups? The disk is 98% full and the system is slow.",
    "I can't select text in the PDF; is it a scanned image?",
    "Is there a way to sort my photos by date taken instead of date added?",
    "Press Ctrl + Alt + Delete, then choose 'Task Manager' and end the frozen program.",
    "The app asks for access to my contacts -- why? I only use it for the calendar.",
    "My password manager says 'weak' for a 12-character password with symbols; what's the rule?",
    "Drop-down menus don't open in Safari 17 on my Mac; Chrome is fine.",
    "Update: it works now! I cleared the cache and logged in again.",
    "The script that used to open my inbox at start-up stopped after the last Windows update.",
    "Where do I find 'Insert > Table' in the new Word? The ribbon looks different.",
    "Wi-Fi shows 'connected, no internet' on the 2nd floor only; the router is on the 1st.",
    "The 'Select all' checkbox selects only the 50 rows on the page, not all 1,200 -- is that a bug?",
    "Who can see my posts? I set it to 'Friends only' but a stranger commented.",
    "It says 'Union of Nations' on the certificate; that's a typo, it should say 'United'.",
    "Exit full screen with Esc; if that fails, F11.",
    "Our shared drive path changed from S:\\Projects to \\\\files\\projects; the shortcuts are broken.",
    "The echo on our calls is terrible; muting the laptop's speaker fixed it.",
    "The 'Find my phone' map shows the phone at home, but it's not there.",
    "The screen goes black for 1-2 seconds when I plug in the HDMI cable; drivers are up to date.",
    "System restore took 2 hours and ended with 'did not complete successfully'.",
    "I get 'Permission denied' when I save to the desktop; the admin said to use Documents.",
    # sports, games, culture
    "Rugby union or league? I never remember which one has 13 players.",
    "The drop rate of the rare sword is 0.5% -- we farmed the boss 200 times.",
    "Selected for the regional team! Training Tuesdays & Thursdays, 6-8 pm.",
    "He scored in the 89th minute; the stadium's echo was deafening.",
    "Top 5 films of the year: (1) the one with the heist, (2) the space one, (3)-(5) tie.",
    "The script was better than the film; they cut the best scene.",
    "Our book club picked 'Where the Crawdads Sing' -- meet on {d} at {t}, my place.",
    "Union Berlin vs. Hertha: 2-1 (and the fans sang for an hour after).",
    "The game's 'sleep' mode drains the battery overnight; is that normal?",
    "Ticket says 'Gate 3 -- Union Stand -- Row K -- Seat 14'; is that under the roof?",
    "Bet on red or black? Either way the house wins.",
    "A cat on the pitch stopped the match for 5 minutes; best moment of the season.",
    # questions to support, with quoted labels
    "I clicked 'Delete', then 'Are you sure? Yes', and the file is still there.",
    "When I select 'Other' in the country list, the form says 'field required' for the state.",
    "The page says 'Order by phone: 0800 123 456 (Mon-Fri, 9-5)'; is that free from mobiles?",
    "The e-mail says 'Click here to update your details or your account will be closed' -- is that you or a scam?",
    "I got a 'security alert' about a sign-in from Paris at {t}; it wasn't me.",
    "Your chat bot keeps saying 'I didn't get that, select an option' -- I'd like a human, please.",
    "Where's the 'Unsubscribe' link? I only see 'Update preferences'.",
    "The form won't submit if the name has an apostrophe (O'Brien); it says 'invalid characters'.",
    "Please drop the late fee; the payment was made on time (receipt attached).",
    "Can you insert a line break between the address and the phone number on the label?",
    "My username is 'admin-jane'; I can't log in since the reset at {t}.",
    "Where do I select 'paperless billing'? It's not under 'Account' or 'Billing'.",
    "I don't want to 'drop' my course, just switch from the 9 am to the 2 pm section.",
    "Is the 'Union' plan (family of 4) cheaper than 2 x 'Duo'?",
]

# Other languages, where English words of computing and trade are everyday loanwords.
SENTENCES_OTHER = [
    ("fr", "Sélectionnez la taille (S, M ou L) -- le bouton 'Ajouter' reste gris sinon ; merci !"),
    ("fr", "J'ai fait un update de l'appli et maintenant le script de démarrage ne marche plus."),
    ("fr", "Le drop de la nouvelle collection est à 10 h ; l'union des deux boutiques ouvre le même jour."),
    ("fr", "Pouvez-vous supprimer (delete) mon compte ? Je n'utilise plus le service depuis 2023."),
    ("de", "Bitte wählen Sie 'Alle auswählen' und dann 'Löschen' -- so geht's am schnellsten."),
    ("de", "Das Update hat mein Skript kaputt gemacht; der Drucker meldet 'Zugriff verweigert'."),
    ("de", "Die Union hat gestern die Wahl gewonnen; die Koalition steht ab Mai."),
    ("de", "Drop-Shipping ist bei uns nicht erlaubt, Ware muss im Lager sein (Select-Programm)."),
    ("es", "Selecciona la talla (S, M o L) y luego 'Añadir al carrito'; el botón no funciona en Safari."),
    ("es", "El script de la obra se cambió; el elenco tuvo 2 días para aprenderlo."),
    ("es", "¿Puedo hacer drop-off del paquete en la tienda de la calle Unión?"),
    ("pt", "Selecione o tamanho e clique em 'Comprar'; o update de ontem quebrou o botão."),
    ("pt", "A união dos dois times foi anunciada hoje -- treinos às terças e quintas."),
    ("it", "Seleziona 'Elimina account' nelle impostazioni; se non c'è, scrivici."),
    ("nl", "Selecteer 'Alles' en druk op 'Delete'; daarna is de map leeg."),
    ("nl", "De update van vanochtend heeft het script van de printer stukgemaakt."),
]

# Short texts: statuses, titles, chat replies, course and book names, product names. A command's or a keyword's name
# often leads them in its everyday sense (a cat, a curl at the gym, a sleep, a Union, a book on JavaScript).
SHORT_TEXTS = [
    "cat is asleep on the keyboard again", "cat food for a fussy eater", "curl for the girls, then squats",
    "curl up with a good book", "sleep is for the weak!", "sleep tracker on the new watch", "less is more, they say.",
    "more of this please!", "head to the beach at 5?", "head and shoulders above the rest", "tail of the dragon ride",
    "find a doctor near me", "find my lost earbuds", "sort of a big deal", "kill the lights, it's movie time",
    "date night at the new Thai place", "time for a coffee break", "echo is my dog's name", "watch the game at Joe's?",
    "touch base on Monday", "top of the morning to you", "nice to meet you all", "yes to all of the above",
    "who is on call tonight?", "which one is the cheapest?", "make it a double, please", "ping me when you are free",
    "bash at the club on Friday", "zsh is my favourite shell", "fish and chips on a Friday", "dash to the station",
    "java is my morning fuel", "Python for the absolute beginner", "ruby red grapefruit in a jar",
    "perl of the ocean bracelet", "node of the network is down", "PHP for the web, second edition",
    "Rust in action, a review", "go for a run in the park", "swift as a coconut", "Lua in the game engine",
    "JavaScript: The Good Parts", "JavaScript: The Definitive Guide", "Java: A Beginner's Guide",
    "Python: The Complete Reference", "SQL: The Complete Reference", "Bash: the missing manual",
    "select the best option for you", "select a time that suits you", "union of the two clubs is on",
    "Union Station is closed on Sundays", "drop me a line anytime", "drop off the kids at 8", "update on the move",
    "update my address, please", "insert a coin to start", "delete this post, it was a mistake",
    "order of the phoenix on the shelf", "table for four at 7:30", "join us for dinner!", "where is the exit?",
    "exec summary for the board", "system of a down tribute", "shadow of the colossus remake",
    "passwd reset link is broken", "root for the home team!", "host of the show tonight", "shell out for the good one",
    "wget is not on my Mac?", "ls is not recognised on Windows", "ps: bring snacks", "id card is in the car",
    "env is not a word, is it?", "tar pits of La Brea", "chmod of a file in the guide", "grep for the word in the log",
    "nc is the state code of North Carolina", "screen time for the kids", "tee time at 9", "split the bill with me",
    "rm is short for room in my notes", "vi or nano, which one?", "awk moment at the party",
    "sed is the French word for silk?", "dig in, everyone!", "host a party in June", "print the tickets at home",
    "wall of fame at the office", "mail the form to the bank", "write a review of the hotel",
    "sudo make me a sandwich, the classic", "exit the ramp at 23B", "alias for the new account",
    "eval of the students in May", "apt in the city for rent", "yum, that cake!", "git good at chess",
    "dd of the month for payments", "tr of the song is weird", "awk and sed in the same week",
    # Model names, editions and sizes searched as they are written: a short name, then its number.
    "ls 500 f sport", "LS 460 headlight", "ls 300 lexus", "cat 6 cable", "Cat 8 ethernet 3 ft", "ps 5 slim",
    "PS 4 pro", "id 4 pro", "ID 3 range", "mx 5 miata", "cx 5 2024", "gt 3 rs", "java 21 download", "node 20 lts",
    "perl 5", "ruby 3 changelog", "php 8", "ssh 2 protocol", "ftp 21", "nc 17 rating", "kill bill 2",
    "sh 2 mic", "env 2024 report", "sl 500", "tar 2 rental", "more 4 kids", "less 200 calories", "top 10",
    "time 2 shine", "head 2 toe", "df 300",
]

FILL = {
    "n": lambda rng: str(rng.randint(2, 12)),
    "t": lambda rng: pick(rng, [f"{rng.randint(1, 12)}:{pick(rng, ['00', '15', '30', '45'])} {pick(rng, ['am', 'pm'])}",
                                f"{rng.randint(7, 22)}:{pick(rng, ['00', '15', '30', '45'])}", "noon"]),
    "m": lambda rng: pick(rng, [f"${rng.randint(5, 300)}.{rng.randint(0, 99):02d}", f"£{rng.randint(5, 300)}",
                                f"{rng.randint(5, 300)},{rng.randint(0, 99):02d} €"]),
    "d": lambda rng: pick(rng, [f"{rng.randint(1, 28)}/{rng.randint(1, 12):02d}", f"the {rng.randint(1, 28)}th",
                                pick(rng, ["Monday", "Tuesday", "last Friday", "yesterday"])]),
    "o": lambda rng: pick(rng, [f"#{rng.randint(10000, 999999)}", f"{rng.randint(100, 999)}-{rng.randint(1000000, 9999999)}",
                                f"A{alnum(rng, 7).upper()}"]),
}
ACCEPT = {"en": "en-US,en;q=0.9", "fr": "fr-FR,fr;q=0.9,en;q=0.8", "de": "de-DE,de;q=0.9,en;q=0.8",
          "es": "es-ES,es;q=0.9", "pt": "pt-BR,pt;q=0.9,en;q=0.8", "it": "it-IT,it;q=0.9", "nl": "nl-NL,nl;q=0.9,en;q=0.8"}


def sentence(rng):
    """(language, one sentence with its slots filled)."""
    lang, s = ("en", pick(rng, SENTENCES)) if rng.random() < 0.9 else pick(rng, SENTENCES_OTHER)
    return lang, re.sub(r"\{(\w)\}", lambda m: FILL[m.group(1)](rng), s)


def text_of(rng, lo=1, hi=4):
    """(language, one to four sentences as a person writes them in a text box)."""
    lang, first = sentence(rng)
    parts = [first] + [sentence(rng)[1] for _ in range(rng.randint(lo, hi) - 1)]
    sep = pick(rng, [" ", " ", "\n", "\r\n", "\n\n"])
    return lang, sep.join(parts)


def phrase(rng):
    """A search phrase: a few words of a sentence as people type them into a search box, the sentence's
    punctuation left out (a word keeps its own apostrophe, hyphen or ampersand: o'brien, drop-off, m&s)."""
    lang, s = sentence(rng)
    words = [w.strip(".,;:!?()\"'-") for w in re.split(r"\s+", s)]
    words = [w for w in words if w and w != "&"]
    start = rng.randrange(max(1, len(words) - 2))
    picked = " ".join(words[start:start + rng.randint(2, 6)])
    return lang, picked.lower() if rng.random() < 0.6 else picked


def slug(s):
    words = re.findall(r"[a-z0-9]+", s.lower())[:10]
    return "-".join(words)


def search_get(rng, c):
    lang, q = phrase(rng) if rng.random() < 0.7 else sentence(rng)
    hst = host(rng, pick(rng, ["www", "shop", "help", "forum", "m"]))
    path = pick(rng, ["/search", "/s", "/catalogsearch/result/", "/help/search", "/search/"])
    params = [(pick(rng, ["q", "query", "s", "search", "term"]), q)]
    if rng.random() < 0.3:
        params.append(("page", str(rng.randint(2, 9))))
    ck = cookie_header(rng)
    if rng.random() < 0.3:  # recent searches kept by the page's script, URL-encoded JSON
        ck = (ck + "; " if ck else "") + "recent_searches=" + urllib.parse.quote(jsonb([phrase(rng)[1] for _ in range(rng.randint(1, 3))]).decode(), safe="")
    c.add("GET", path + "?" + form(params),
          navigation(rng, hst, referer=f"https://{hst}/", cookie=ck, lang=ACCEPT[lang], site="same-origin"))


def autocomplete(rng, c):
    lang, q = phrase(rng)
    hst = host(rng, pick(rng, ["www", "shop"]))
    c.add("GET", "/api/search/suggest?" + qs([("q", q[:rng.randint(3, len(q))]), ("limit", "8")]),
          fetch(rng, hst, f"https://{hst}/", lang=ACCEPT[lang], cookie=cookie_header(rng)))


def click_from_results(rng, c):
    """A result clicked on a search page: the page with the query is the Referer."""
    lang, q = phrase(rng)
    hst = host(rng, pick(rng, ["www", "shop", "help"]))
    _, title = sentence(rng)
    target = pick(rng, [f"/products/{slug(title)}-{rng.randint(100, 99999)}", f"/articles/{rng.randint(1000, 999999)}-{slug(title)}",
                        f"/questions/{rng.randint(10000, 9999999)}/{slug(title)}"])
    c.add("GET", target, navigation(rng, hst, referer=f"https://{hst}/search?" + form([("q", q)]), cookie=cookie_header(rng),
                                    lang=ACCEPT[lang], site="same-origin"))


def slug_page(rng, c):
    lang, title = sentence(rng)
    hst = host(rng, pick(rng, ["www", "blog", "news", "forum", "shop"]))
    target = pick(rng, [f"/blog/{2020 + rng.randint(0, 5)}/{rng.randint(1, 12):02d}/{slug(title)}/",
                        f"/t/{slug(title)}/{rng.randint(1, 99999)}", f"/p/{slug(title)}-{hexid(rng, 6)}",
                        f"/news/{slug(title)}.html", f"/questions/{rng.randint(10000, 9999999)}/{slug(title)}"])
    c.add("GET", target, navigation(rng, hst, referer=pick(rng, [None, f"https://{hst}/"]), cookie=cookie_header(rng),
                                    lang=ACCEPT[lang], site=pick(rng, ["none", "same-origin"])))


def html_form(rng, c):
    lang, body = text_of(rng)
    _, title = sentence(rng)
    hst = host(rng, pick(rng, ["www", "shop", "support", "forum"]))
    fields = pick(rng, [
        [("rating", str(rng.randint(1, 5))), ("title", title[:60]), ("review", body), ("nickname", pick(rng, ["Jen", "Mo", "T. O'Neill", "dad_of_3"]))],
        [("name", pick(rng, ["Sam Carter", "Aoife O'Shea", "Luis García", "Jo-Ann Smith"])), ("email", email(rng)), ("subject", title[:80]),
         ("message", body), ("consent", "on")],
        [("comment", body), ("author", pick(rng, ["Kim", "Dev R.", "O'Hara"])), ("email", email(rng)), ("url", ""),
         ("comment_post_ID", str(rng.randint(1, 99999))), ("comment_parent", "0")],
        [("ticket[subject]", title[:80]), ("ticket[description]", body), ("ticket[priority]", pick(rng, ["low", "normal", "high"])),
         ("authenticity_token", alnum(rng, 86) + "==")],
    ])
    path = pick(rng, ["/reviews", "/contact", "/wp-comments-post.php", "/support/tickets", "/feedback"])
    ref = f"https://{hst}{path}"
    if rng.random() < 0.75:
        c.add("POST", path, form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=cookie_header(rng), lang=ACCEPT[lang]),
              form(fields))
    else:
        boundary = "----WebKitFormBoundary" + alnum(rng, 16)
        multipart = "".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in fields) + f"--{boundary}--\r\n"
        c.add("POST", path, form_post(rng, hst, ref, f"multipart/form-data; boundary={boundary}", cookie=cookie_header(rng),
                                      lang=ACCEPT[lang]), multipart)


def json_api(rng, c):
    lang, body = text_of(rng, 1, 3)
    _, title = sentence(rng)
    hst = host(rng, pick(rng, ["app", "api", "chat", "tasks"]))
    kind = rng.randrange(5)
    if kind == 0:
        path, doc = f"/api/conversations/{rng.randint(1, 99999)}/messages", {"text": body, "client_msg_id": hexid(rng, 32), "type": "message"}
    elif kind == 1:
        path, doc = "/api/notes", {"title": title[:60], "content": body, "pinned": rng.random() < 0.2, "tags": ["home", "todo"][: rng.randint(0, 2)]}
    elif kind == 2:
        path, doc = "/api/v1/tasks", {"name": title[:100], "notes": body, "due_on": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                                      "assignee": email(rng), "completed": False}
    elif kind == 3:
        path, doc = "/api/support/requests", {"request": {"subject": title[:80], "comment": {"body": body}, "requester": {"email": email(rng)}}}
    else:
        path, doc = f"/api/products/{rng.randint(1, 99999)}/reviews", {"rating": rng.randint(1, 5), "title": title[:60], "body": body,
                                                                        "recommend": rng.random() < 0.8}
    c.add(pick(rng, ["POST", "POST", "PUT", "PATCH"]) if kind in (1, 2) else "POST", path,
          fetch(rng, hst, f"https://{hst}/", content_type="application/json", cookie=cookie_header(rng), lang=ACCEPT[lang],
                extra=[("X-CSRF-Token", alnum(rng, 43))]), jsonb(doc))


def xml_body(rng, c):
    _, body = text_of(rng, 1, 2)
    _, title = sentence(rng)
    escaped = body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    subject = title[:60].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    doc = ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">"
           f"<soap:Body><AddNote xmlns=\"http://helpdesk.example/ws\"><ticketId>{rng.randint(1000, 99999)}</ticketId>"
           f"<subject>{subject}</subject><text>{escaped}</text></AddNote></soap:Body></soap:Envelope>")
    h = [("Host", host(rng, "helpdesk")), ("User-Agent", pick(rng, ["Apache-CXF/3.5.9", "Zeep/4.3.1 (www.python-zeep.org)"])),
         ("Content-Type", "text/xml; charset=utf-8"), ("SOAPAction", "\"http://helpdesk.example/ws/AddNote\""), ("Accept", "text/xml")]
    c.add("POST", "/ws/TicketService", h, doc)


MATHS = ["sqrt(2)/2", "3x^2 + 2x - 1", "(a+b)*(a-b)", "2*pi*r", "sin(x)^2 + cos(x)^2", "log(100)/log(10)",
         "x^3 - 3x + 2", "(1+sqrt(5))/2", "abs(-7) + 3", "2(x + 3) - 4", "e^(2x)", "tan(x)/cos(x)", "12.5%", "1/3 + 1/6"]


def maths_answer(rng, c):
    """An exercise's answer (a maths site's attempt, JSON) or a calculator's query."""
    m = pick(rng, MATHS)
    hst = host(rng, pick(rng, ["www", "learn", "app"]))
    if rng.random() < 0.6:
        c.add("POST", "/api/exercises/attempt",
              fetch(rng, hst, f"https://{hst}/exercise/{rng.randint(1, 999)}", content_type="application/json",
                    cookie=cookie_header(rng)),
              jsonb({"exerciseId": rng.randint(1, 99999), "answer": {"type": "expression", "value": m},
                     "attempt": rng.randint(1, 3), "timeTakenMs": rng.randint(2000, 90000)}))
    else:
        c.add("GET", "/calculator?" + form([("q", m)]),
              navigation(rng, hst, referer=f"https://{hst}/", cookie=cookie_header(rng), site="same-origin"))


TEX_QUESTIONS = [
    ("Is $f(x) = x\\sin(1/x)$ uniformly continuous on $(0,1)$?",
     "Since $|\\sin(1/x)| \\le 1$, we get $|f(x)| \\le |x| \\to 0$, so $f$ extends continuously to $[0,1]$ by $f(0)=0$. "
     "Does the same work for $g(x)=\\sin(1/x)$? I think not, because $\\lim_{x\\to0^+} g(x)$ doesn't exist."),
    ("Limit $\\lim_{x \\to 0} \\frac{\\tan x - \\sin x}{x^3}$ without L'Hôpital",
     "I wrote $\\tan x - \\sin x = \\tan x(1-\\cos x)$ and used $1-\\cos x \\sim x^2/2$, which gives $\\frac{1}{2}$. Is that rigorous?"),
    ("Why is $\\sum_{n=1}^\\infty \\frac{1}{n^2} = \\frac{\\pi^2}{6}$?",
     "I know the Basel problem, but I don't see why $$\\prod_{n=1}^\\infty \\left(1-\\frac{x^2}{n^2\\pi^2}\\right) = \\frac{\\sin x}{x}$$ holds."),
    ("Eigenvalues of $A^TA$ vs. $AA^T$",
     "For $A \\in \\mathbb{R}^{m \\times n}$, show that the non-zero eigenvalues of \\(A^TA\\) and \\(AA^T\\) agree (with multiplicity)."),
    ("Probabilité que $X_1 + X_2 \\geq 3$",
     "Soit $X_i \\sim \\mathcal{B}(n, p)$ indépendantes. J'obtiens $P(X_1+X_2 \\geq 3) = 1 - \\sum_{k=0}^{2} \\binom{2n}{k} p^k (1-p)^{2n-k}$, c'est juste ?"),
    ("Bound for $a_i \\oplus a_j$",
     "For problem D note that $$$a_i \\oplus a_j \\le 2\\max(a_i, a_j)$$$, so only $$$O(\\log C)$$$ candidates matter."),
]


def maths_question(rng, c):
    """A question or answer on a maths Q&A site or forum with its formulas in TeX, which MathJax or KaTeX typesets
    in the page: the post form, the title checked for duplicates as it is typed, and the page view analytics
    report with the title."""
    title, body = pick(rng, TEX_QUESTIONS)
    hst = host(rng, pick(rng, ["math", "forum", "www"]))
    kind = rng.randrange(3)
    if kind == 0:
        c.add("POST", "/questions/ask/submit",
              fetch(rng, hst, f"https://{hst}/questions/ask", content_type="application/x-www-form-urlencoded; charset=UTF-8",
                    cookie=cookie_header(rng)),
              form([("title", title), ("post-text", body), ("tagnames", pick(rng, ["real-analysis", "linear-algebra", "probability"])),
                    ("fkey", hexid(rng, 32))]))
    elif kind == 1:
        c.add("GET", "/search/titles?" + form([("title", title)]),
              fetch(rng, hst, f"https://{hst}/questions/ask", cookie=cookie_header(rng)))
    else:
        c.add("POST", f"/api/posts/{rng.randint(1000, 999999)}/answers",
              fetch(rng, hst, f"https://{hst}/questions/{rng.randint(1000, 999999)}", content_type="application/json",
                    cookie=cookie_header(rng)),
              jsonb({"body": body, "draft": False}))


def short_text(rng, c):
    """A short text where short texts go: a search, a status or title in a form (urlencoded or multipart), a chat
    message in JSON."""
    t = pick(rng, SHORT_TEXTS)
    t = t.lower() if rng.random() < 0.3 else t
    hst = host(rng, pick(rng, ["www", "shop", "social", "app"]))
    kind = rng.randrange(4)
    if kind == 0:
        c.add("GET", "/search?" + form([(pick(rng, ["q", "query", "s", "term"]), t)]),
              navigation(rng, hst, referer=f"https://{hst}/", cookie=cookie_header(rng), site="same-origin"))
    elif kind == 3:
        c.add("POST", f"/api/channels/{rng.randint(1, 9999)}/messages",
              fetch(rng, hst, f"https://{hst}/", content_type="application/json", cookie=cookie_header(rng)),
              jsonb({"text": t, "nonce": hexid(rng, 16)}))
    else:
        fields = [(pick(rng, ["status", "title", "subject", "headline", "caption"]), t), ("visibility", pick(rng, ["public", "friends"]))]
        path = pick(rng, ["/status", "/posts/new", "/profile/headline", "/photos/caption"])
        if kind == 1:
            c.add("POST", path, form_post(rng, hst, f"https://{hst}{path}", "application/x-www-form-urlencoded",
                                          cookie=cookie_header(rng)), form(fields))
        else:
            boundary = "----WebKitFormBoundary" + alnum(rng, 16)
            body = "".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in fields) + f"--{boundary}--\r\n"
            c.add("POST", path, form_post(rng, hst, f"https://{hst}{path}", f"multipart/form-data; boundary={boundary}",
                                          cookie=cookie_header(rng)), body)


SHAPES = [(5, search_get), (2, autocomplete), (2, click_from_results), (3, slug_page), (5, html_form), (4, json_api), (1, xml_body), (3, short_text), (1, maths_answer), (1, maths_question)]


def build(n=2000, seed=0xE7E5):
    rng = random.Random(seed)
    c = Corpus("everyday-words")
    for _ in range(n):
        weighted(rng, SHAPES)(rng, c)
    return c
