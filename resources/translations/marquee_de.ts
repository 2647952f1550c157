<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>AttractScreen</name>
    <message>
        <source>Now showing in %1</source>
        <translation>Jetzt im Kino in %1</translation>
    </message>
    <message>
        <source>Now showing</source>
        <translation>Jetzt im Kino</translation>
    </message>
    <message>
        <source>Touch a film to buy tickets</source>
        <translation>Film antippen und Tickets kaufen</translation>
    </message>
    <message>
        <source>English</source>
        <translation>Englisch</translation>
    </message>
    <message>
        <source>German</source>
        <translation>Deutsch</translation>
    </message>
    <message>
        <source>High contrast</source>
        <translation>Hoher Kontrast</translation>
    </message>
    <message>
        <source>Larger text</source>
        <translation>Größere Schrift</translation>
    </message>
    <message>
        <source>Films now showing</source>
        <translation>Filme im Programm</translation>
    </message>
    <message>
        <source>Loading the programme…</source>
        <translation>Programm wird geladen…</translation>
    </message>
    <message>
        <source>No shows to sell right now.</source>
        <translation>Derzeit keine Vorstellungen im Verkauf.</translation>
    </message>
    <message>
        <source>Touch a film to see its show times</source>
        <translation>Film antippen für die Vorstellungen</translation>
    </message>
</context>
<context>
    <name>DataTable</name>
    <message>
        <source>Nothing here for this range.</source>
        <translation>Für diesen Zeitraum gibt es nichts.</translation>
    </message>
    <message>
        <source>Filter…</source>
        <translation>Filtern…</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s)</source>
        <translation>
            <numerusform>%n Zeile</numerusform>
            <numerusform>%n Zeilen</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2 rows</source>
        <translation>%1 von %2 Zeilen</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>CSV exportieren</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Wird geladen…</translation>
    </message>
</context>
<context>
    <name>DateRangePicker</name>
    <message>
        <source>%1 d</source>
        <translation>%1 T</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>Übernehmen</translation>
    </message>
</context>
<context>
    <name>DeclinedScreen</name>
    <message>
        <source>Payment not completed</source>
        <translation>Zahlung nicht abgeschlossen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>Noch einmal</translation>
    </message>
</context>
<context>
    <name>DelayedScreen</name>
    <message>
        <source>Your payment is safe</source>
        <translation>Ihre Zahlung ist sicher</translation>
    </message>
    <message>
        <source>If you wait here a moment, your tickets print as soon as the booking is finished.</source>
        <translation>Wenn Sie einen Moment warten, werden Ihre Tickets gedruckt, sobald die Buchung abgeschlossen ist.</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
</context>
<context>
    <name>DeskDashboard</name>
    <message>
        <source>By show</source>
        <translation>Nach Vorstellung</translation>
    </message>
    <message>
        <source>By movie</source>
        <translation>Nach Film</translation>
    </message>
    <message>
        <source>By channel</source>
        <translation>Nach Kanal</translation>
    </message>
    <message>
        <source>By device</source>
        <translation>Nach Gerät</translation>
    </message>
    <message>
        <source>By day</source>
        <translation>Nach Tag</translation>
    </message>
    <message>
        <source>Refunds</source>
        <translation>Erstattungen</translation>
    </message>
    <message>
        <source>Revenue</source>
        <translation>Umsatz</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>Tickets</source>
        <translation>Tickets</translation>
    </message>
    <message numerus="yes">
        <source>%n booking(s)</source>
        <translation>
            <numerusform>%n Buchung</numerusform>
            <numerusform>%n Buchungen</numerusform>
        </translation>
    </message>
    <message>
        <source>Average ticket</source>
        <translation>Durchschnitt je Ticket</translation>
    </message>
    <message>
        <source>revenue ÷ tickets</source>
        <translation>Umsatz ÷ Tickets</translation>
    </message>
    <message numerus="yes">
        <source>%n refund(s) · net %1</source>
        <translation>
            <numerusform>%n Erstattung · netto %1</numerusform>
            <numerusform>%n Erstattungen · netto %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> · +%n unbooked</source>
        <translation>
            <numerusform> · +%n ungebucht</numerusform>
            <numerusform> · +%n ungebucht</numerusform>
        </translation>
    </message>
    <message>
        <source>Kiosk fleet</source>
        <translation>Automaten</translation>
    </message>
    <message>
        <source>%1 / %2 online</source>
        <translation>%1 / %2 online</translation>
    </message>
    <message>
        <source>heartbeat within 2 minutes</source>
        <translation>Lebenszeichen in den letzten 2 Minuten</translation>
    </message>
    <message>
        <source>Revenue and tickets per day</source>
        <translation>Umsatz und Tickets pro Tag</translation>
    </message>
    <message>
        <source>revenue in %1 (bars), tickets (line)</source>
        <translation>Umsatz in %1 (Balken), Tickets (Linie)</translation>
    </message>
    <message>
        <source>Revenue by channel</source>
        <translation>Umsatz nach Kanal</translation>
    </message>
    <message>
        <source>kiosk · till · api</source>
        <translation>Automat · Kasse · API</translation>
    </message>
    <message>
        <source>No sales in this range</source>
        <translation>Keine Verkäufe in diesem Zeitraum</translation>
    </message>
    <message>
        <source>Sales</source>
        <translation>Verkäufe</translation>
    </message>
    <message>
        <source>Fleet health</source>
        <translation>Zustand der Automaten</translation>
    </message>
    <message>
        <source>last heartbeat, offline queue, printer</source>
        <translation>letztes Lebenszeichen, Offline-Warteschlange, Drucker</translation>
    </message>
    <message>
        <source>queue %1 · printer %2</source>
        <translation>Warteschlange %1 · Drucker %2</translation>
    </message>
    <message>
        <source>No devices enrolled</source>
        <translation>Keine Geräte angemeldet</translation>
    </message>
</context>
<context>
    <name>DeskFleet</name>
    <message>
        <source>Healthy</source>
        <translation>In Ordnung</translation>
    </message>
    <message>
        <source>Need attention</source>
        <translation>Zu prüfen</translation>
    </message>
    <message>
        <source>printer problem or queued sales</source>
        <translation>Drucker oder Warteschlange</translation>
    </message>
    <message>
        <source>Offline</source>
        <translation>Offline</translation>
    </message>
    <message>
        <source>no heartbeat for 2 minutes</source>
        <translation>2 Min. ohne Lebenszeichen</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>Geräte</translation>
    </message>
    <message>
        <source>Awaiting reconciliation</source>
        <translation>Warten auf Abgleich</translation>
    </message>
    <message>
        <source>payments open on the server</source>
        <translation>offene Zahlungen auf dem Server</translation>
    </message>
    <message>
        <source>Reconciliation problems</source>
        <translation>Abgleichprobleme</translation>
    </message>
    <message>
        <source>from the kiosks&apos; own checks</source>
        <translation>Prüfungen der Automaten</translation>
    </message>
    <message>
        <source>No device has sent a heartbeat yet.</source>
        <translation>Noch kein Gerät hat ein Lebenszeichen gesendet.</translation>
    </message>
    <message>
        <source>Payments awaiting reconciliation — orders the server&apos;s reconciler has not settled yet</source>
        <translation>Zahlungen im Abgleich — Bestellungen, die der Server noch nicht abgeschlossen hat</translation>
    </message>
    <message>
        <source>No payments awaiting reconciliation.</source>
        <translation>Keine Zahlungen warten auf den Abgleich.</translation>
    </message>
    <message>
        <source>Reconciliation — what the kiosks&apos; latest comparisons with the server left for a person</source>
        <translation>Abgleich — was nach dem letzten Vergleich der Automaten mit dem Server für das Personal bleibt</translation>
    </message>
    <message>
        <source>Nothing to do: every printed ticket and approved payment the kiosks reported is confirmed.</source>
        <translation>Nichts zu tun: Jedes gedruckte Ticket und jede genehmigte Zahlung der Automaten ist bestätigt.</translation>
    </message>
    <message>
        <source>refund due</source>
        <translation>zu erstatten</translation>
    </message>
    <message>
        <source>voided</source>
        <translation>ungültig</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>offen</translation>
    </message>
    <message>
        <source>confirmed</source>
        <translation>bestätigt</translation>
    </message>
</context>
<context>
    <name>DeskLeasesPage</name>
    <message>
        <source>Leases</source>
        <translation>Kontingente</translation>
    </message>
    <message>
        <source>Seats leased to tills</source>
        <translation>An Kassen zugeteilte Plätze</translation>
    </message>
    <message>
        <source>sellable offline by their till</source>
        <translation>offline von ihrer Kasse verkäuflich</translation>
    </message>
    <message>
        <source>Unreported seats</source>
        <translation>Nicht gemeldete Plätze</translation>
    </message>
    <message>
        <source>off sale until the till reports or you release them</source>
        <translation>gesperrt, bis die Kasse meldet oder Sie sie freigeben</translation>
    </message>
    <message>
        <source>Leases per show and till</source>
        <translation>Kontingente je Vorstellung und Kasse</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Wird geladen…</translation>
    </message>
    <message>
        <source>Shows from yesterday to the day after tomorrow.</source>
        <translation>Vorstellungen von gestern bis übermorgen.</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>SHOW</source>
        <translation>VORSTELLUNG</translation>
    </message>
    <message>
        <source>TILL</source>
        <translation>KASSE</translation>
    </message>
    <message>
        <source>STATE</source>
        <translation>STATUS</translation>
    </message>
    <message>
        <source>LEASED</source>
        <translation>ZUGETEILT</translation>
    </message>
    <message>
        <source>SOLD OFFLINE</source>
        <translation>OFFLINE VERKAUFT</translation>
    </message>
    <message>
        <source>RETURNED</source>
        <translation>ZURÜCK</translation>
    </message>
    <message>
        <source>UNREPORTED</source>
        <translation>NICHT GEMELDET</translation>
    </message>
    <message>
        <source>EXPIRES</source>
        <translation>LÄUFT AB</translation>
    </message>
    <message numerus="yes">
        <source>%1 seats · %n sale(s)</source>
        <translation>
            <numerusform>%1 Plätze · %n Verkauf</numerusform>
            <numerusform>%1 Plätze · %n Verkäufe</numerusform>
        </translation>
    </message>
    <message>
        <source>Revoke</source>
        <translation>Widerrufen</translation>
    </message>
    <message>
        <source>Release unreported seats</source>
        <translation>Nicht gemeldete Plätze freigeben</translation>
    </message>
    <message>
        <source>No till holds a lease for these shows.</source>
        <translation>Keine Kasse hat ein Kontingent für diese Vorstellungen.</translation>
    </message>
</context>
<context>
    <name>DeskMain</name>
    <message>
        <source>Marquee — Manager desk</source>
        <translation>Marquee — Theaterleitung</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>Übersicht</translation>
    </message>
    <message>
        <source>Occupancy</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>Shows</source>
        <translation>Vorstellungen</translation>
    </message>
    <message>
        <source>Kiosk fleet</source>
        <translation>Automaten</translation>
    </message>
    <message>
        <source>Shifts</source>
        <translation>Schichten</translation>
    </message>
    <message>
        <source>Audit log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Manager desk</source>
        <translation>Theaterleitung</translation>
    </message>
    <message>
        <source>Sales, occupancy, the kiosk fleet and the show schedule. Managers and admins only.</source>
        <translation>Verkäufe, Auslastung, Automaten und Spielplan. Nur für Leitung und Administration.</translation>
    </message>
    <message>
        <source>Sign out</source>
        <translation>Abmelden</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Till shifts</source>
        <translation>Kassenschichten</translation>
    </message>
    <message>
        <source>Opened and closed shifts with their cash count, in the range.</source>
        <translation>Geöffnete und geschlossene Schichten mit Kassenzählung im Zeitraum.</translation>
    </message>
    <message>
        <source>Every staff action: who, what, when, from which device, and why. Append-only.</source>
        <translation>Jede Aktion des Personals: wer, was, wann, an welchem Gerät und warum. Nur Anfügen, kein Löschen.</translation>
    </message>
    <message>
        <source>Load %L1 more</source>
        <translation>%L1 weitere laden</translation>
    </message>
    <message>
        <source>Leases</source>
        <translation>Kontingente</translation>
    </message>
</context>
<context>
    <name>DeskOccupancy</name>
    <message>
        <source>Shows</source>
        <translation>Vorstellungen</translation>
    </message>
    <message>
        <source>Click a show for its heat map</source>
        <translation>Vorstellung anklicken für die Belegung</translation>
    </message>
    <message>
        <source>Heat map</source>
        <translation>Belegungsplan</translation>
    </message>
    <message>
        <source>%1 of %2 seats sold (%3%) · %4 held · %5 house</source>
        <translation>%1 von %2 Plätzen verkauft (%3 %) · %4 reserviert · %5 Haus</translation>
    </message>
    <message>
        <source>Choose a show</source>
        <translation>Vorstellung wählen</translation>
    </message>
    <message>
        <source>Sold first</source>
        <translation>Zuerst verkauft</translation>
    </message>
    <message>
        <source>sold last</source>
        <translation>zuletzt verkauft</translation>
    </message>
    <message>
        <source>free</source>
        <translation>frei</translation>
    </message>
    <message>
        <source>held</source>
        <translation>reserviert</translation>
    </message>
    <message>
        <source>HOUSE HOLDS</source>
        <translation>HAUSKONTINGENT</translation>
    </message>
    <message>
        <source>seats, e.g. A4 A5</source>
        <translation>Plätze, z. B. A4 A5</translation>
    </message>
    <message>
        <source>reason, e.g. director and guests</source>
        <translation>Grund, z. B. Regie und Gäste</translation>
    </message>
    <message>
        <source>Hold for house</source>
        <translation>Für das Haus sperren</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>released at the desk</source>
        <translation>von der Leitung freigegeben</translation>
    </message>
    <message>
        <source>No seats are kept back for this show.</source>
        <translation>Für diese Vorstellung sind keine Plätze zurückgehalten.</translation>
    </message>
</context>
<context>
    <name>DeskShows</name>
    <message>
        <source>Shows</source>
        <translation>Vorstellungen</translation>
    </message>
    <message>
        <source>Click a show to edit it</source>
        <translation>Vorstellung zum Bearbeiten anklicken</translation>
    </message>
    <message>
        <source>New show</source>
        <translation>Neue Vorstellung</translation>
    </message>
    <message>
        <source>Edit show %1</source>
        <translation>Vorstellung %1 bearbeiten</translation>
    </message>
    <message>
        <source>All seats start free.</source>
        <translation>Alle Plätze sind anfangs frei.</translation>
    </message>
    <message>
        <source> · held and sold seats stay as they are</source>
        <translation> · reservierte und verkaufte Plätze bleiben, wie sie sind</translation>
    </message>
    <message>
        <source>MOVIE</source>
        <translation>FILM</translation>
    </message>
    <message>
        <source>Choose a movie</source>
        <translation>Film wählen</translation>
    </message>
    <message>
        <source>SCREEN</source>
        <translation>SAAL</translation>
    </message>
    <message>
        <source>Choose a screen</source>
        <translation>Saal wählen</translation>
    </message>
    <message>
        <source>STARTS (%1)</source>
        <translation>BEGINN (%1)</translation>
    </message>
    <message>
        <source>STARTS (VENUE TIME)</source>
        <translation>BEGINN (ORTSZEIT)</translation>
    </message>
    <message>
        <source>CURRENCY</source>
        <translation>WÄHRUNG</translation>
    </message>
    <message>
        <source>venue&apos;s</source>
        <translation>des Hauses</translation>
    </message>
    <message>
        <source>PRICES PER TIER</source>
        <translation>PREISE JE KATEGORIE</translation>
    </message>
    <message>
        <source>Waiting room</source>
        <translation>Warteraum</translation>
    </message>
    <message>
        <source>REASON (AUDIT LOG)</source>
        <translation>GRUND (PROTOKOLL)</translation>
    </message>
    <message>
        <source>Why the change</source>
        <translation>Grund der Änderung</translation>
    </message>
    <message>
        <source>Create show</source>
        <translation>Vorstellung anlegen</translation>
    </message>
    <message>
        <source>Save changes</source>
        <translation>Änderungen speichern</translation>
    </message>
</context>
<context>
    <name>DeskTablePage</name>
    <message>
        <source>Load more</source>
        <translation>Mehr laden</translation>
    </message>
</context>
<context>
    <name>ErrorScreen</name>
    <message>
        <source>Sorry!</source>
        <translation>Entschuldigung!</translation>
    </message>
    <message>
        <source>Start again</source>
        <translation>Neu beginnen</translation>
    </message>
</context>
<context>
    <name>HoldCountdown</name>
    <message>
        <source>Seats held %1</source>
        <translation>Plätze reserviert %1</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>Marquee</source>
        <translation>Marquee</translation>
    </message>
    <message>
        <source>Staff (hold three seconds)</source>
        <translation>Personal (drei Sekunden halten)</translation>
    </message>
</context>
<context>
    <name>OfflineScreen</name>
    <message>
        <source>This kiosk is offline, please visit the box office.</source>
        <translation>Dieser Automat ist offline, bitte gehen Sie zur Kasse.</translation>
    </message>
    <message>
        <source>We are sorry. No tickets can be sold here until the connection is back; we will keep trying.</source>
        <translation>Es tut uns leid. Bis die Verbindung zurück ist, können hier keine Tickets verkauft werden; wir versuchen es weiter.</translation>
    </message>
    <message>
        <source>Try again now</source>
        <translation>Jetzt erneut versuchen</translation>
    </message>
</context>
<context>
    <name>PairingMain</name>
    <message>
        <source>Marquee: pair this device</source>
        <translation>Marquee: Gerät koppeln</translation>
    </message>
    <message>
        <source>Wrong pairing code</source>
        <translation>Falscher Kopplungscode</translation>
    </message>
    <message>
        <source>This code was used already</source>
        <translation>Dieser Code wurde schon verwendet</translation>
    </message>
    <message>
        <source>This code has expired</source>
        <translation>Dieser Code ist abgelaufen</translation>
    </message>
    <message>
        <source>This code is no longer valid</source>
        <translation>Dieser Code gilt nicht mehr</translation>
    </message>
    <message>
        <source>Pairing is locked for a while</source>
        <translation>Koppeln ist eine Weile gesperrt</translation>
    </message>
    <message>
        <source>The server cannot be reached</source>
        <translation>Der Server ist nicht erreichbar</translation>
    </message>
    <message>
        <source>The venue certificate does not match</source>
        <translation>Das Zertifikat des Hauses stimmt nicht überein</translation>
    </message>
    <message>
        <source>The server is not trusted</source>
        <translation>Dem Server wird nicht vertraut</translation>
    </message>
    <message>
        <source>Check the server address</source>
        <translation>Prüfen Sie die Serveradresse</translation>
    </message>
    <message>
        <source>Check the fingerprint</source>
        <translation>Prüfen Sie den Fingerabdruck</translation>
    </message>
    <message>
        <source>The device is not paired</source>
        <translation>Das Gerät ist nicht gekoppelt</translation>
    </message>
    <message>
        <source>This device is paired</source>
        <translation>Dieses Gerät ist gekoppelt</translation>
    </message>
    <message>
        <source>Pair this device</source>
        <translation>Dieses Gerät koppeln</translation>
    </message>
    <message>
        <source>Ask the manager for a pairing code for this kiosk or till (marquee-admin device add --pairing). It is valid for 15 minutes and pairs once. Type the server&apos;s address, the code and the venue certificate fingerprint printed with it.</source>
        <translation>Bitten Sie die Leitung um einen Kopplungscode für diesen Automaten oder diese Kasse (marquee-admin device add --pairing). Er gilt 15 Minuten und koppelt einmal. Geben Sie die Adresse des Servers, den Code und den mit ihm gedruckten Fingerabdruck des Zertifikats des Hauses ein.</translation>
    </message>
    <message>
        <source>Server address</source>
        <translation>Serveradresse</translation>
    </message>
    <message>
        <source>Like https://tickets.venue.example</source>
        <translation>Etwa https://tickets.venue.example</translation>
    </message>
    <message>
        <source>Pairing code</source>
        <translation>Kopplungscode</translation>
    </message>
    <message>
        <source>8 letters and digits, like 7K3M-Q9TZ</source>
        <translation>8 Buchstaben und Ziffern, etwa 7K3M-Q9TZ</translation>
    </message>
    <message>
        <source>Venue certificate fingerprint (SHA-256)</source>
        <translation>Fingerabdruck des Zertifikats des Hauses (SHA-256)</translation>
    </message>
    <message>
        <source>Printed with the code and by marquee-admin tls show. Needed for https unless the server has a public certificate.</source>
        <translation>Mit dem Code gedruckt und von marquee-admin tls show. Für https nötig, außer der Server hat ein öffentliches Zertifikat.</translation>
    </message>
    <message>
        <source>Venue certificate fingerprint</source>
        <translation>Fingerabdruck des Zertifikats des Hauses</translation>
    </message>
    <message>
        <source>Paired as the till “%1”.</source>
        <translation>Als Kasse „%1“ gekoppelt.</translation>
    </message>
    <message>
        <source>Paired as the kiosk “%1”.</source>
        <translation>Als Automat „%1“ gekoppelt.</translation>
    </message>
    <message>
        <source>From now on it trusts the server only through the venue certificate.</source>
        <translation>Ab jetzt vertraut es dem Server nur über das Zertifikat des Hauses.</translation>
    </message>
    <message>
        <source>No venue certificate was stored.</source>
        <translation>Es wurde kein Zertifikat des Hauses gespeichert.</translation>
    </message>
    <message>
        <source>Checking the venue certificate…</source>
        <translation>Zertifikat des Hauses wird geprüft…</translation>
    </message>
    <message>
        <source>Pairing…</source>
        <translation>Wird gekoppelt…</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>Noch einmal</translation>
    </message>
    <message>
        <source>Pair</source>
        <translation>Koppeln</translation>
    </message>
    <message>
        <source>Open the till</source>
        <translation>Kasse öffnen</translation>
    </message>
    <message>
        <source>Start the kiosk</source>
        <translation>Automat starten</translation>
    </message>
</context>
<context>
    <name>PasswordPrompt</name>
    <message>
        <source>Confirm</source>
        <translation>Bestätigen</translation>
    </message>
    <message>
        <source>Password or PIN</source>
        <translation>Passwort oder PIN</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Wird geprüft…</translation>
    </message>
</context>
<context>
    <name>PaymentScreen</name>
    <message>
        <source>Please present your card on the terminal</source>
        <translation>Bitte halten Sie Ihre Karte an das Terminal</translation>
    </message>
    <message>
        <source>Payment approved. Booking your seats…</source>
        <translation>Zahlung genehmigt. Ihre Plätze werden gebucht…</translation>
    </message>
    <message>
        <source>Processing your payment…</source>
        <translation>Ihre Zahlung wird bearbeitet…</translation>
    </message>
    <message>
        <source>Amount: %1</source>
        <translation>Betrag: %1</translation>
    </message>
    <message>
        <source>Cancel payment</source>
        <translation>Zahlung abbrechen</translation>
    </message>
    <message>
        <source>Card simulator (demo mode)</source>
        <translation>Kartensimulator (Demo-Modus)</translation>
    </message>
    <message>
        <source>Visa: approved</source>
        <translation>Visa: genehmigt</translation>
    </message>
    <message>
        <source>Declined</source>
        <translation>Abgelehnt</translation>
    </message>
    <message>
        <source>Slow</source>
        <translation>Langsam</translation>
    </message>
    <message>
        <source>Lost card</source>
        <translation>Verlorene Karte</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>Doppelt</translation>
    </message>
    <message>
        <source>Late answer</source>
        <translation>Späte Antwort</translation>
    </message>
</context>
<context>
    <name>Poster</name>
    <message>
        <source>Poster of %1</source>
        <translation>Plakat von %1</translation>
    </message>
</context>
<context>
    <name>PrintingScreen</name>
    <message>
        <source>Your booking is confirmed, but the tickets did not print</source>
        <translation>Ihre Buchung ist bestätigt, aber die Tickets wurden nicht gedruckt</translation>
    </message>
    <message>
        <source>Printing your tickets…</source>
        <translation>Ihre Tickets werden gedruckt…</translation>
    </message>
    <message>
        <source>Booking reference %1</source>
        <translation>Buchungsnummer %1</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>Print again</source>
        <translation>Erneut drucken</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Today</source>
        <translation>Heute</translation>
    </message>
    <message>
        <source>Tomorrow</source>
        <translation>Morgen</translation>
    </message>
    <message>
        <source>Row %1   Seat %2</source>
        <translation>Reihe %1   Platz %2</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Booking %1</source>
        <translation>Buchung %1</translation>
    </message>
    <message>
        <source>MARQUEE — RECEIPT</source>
        <translation>MARQUEE — BELEG</translation>
    </message>
    <message>
        <source>Row %1 Seat %2 (%3)</source>
        <translation>Reihe %1 Platz %2 (%3)</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Paid by %1</source>
        <translation>Bezahlt mit %1</translation>
    </message>
    <message>
        <source>Payment %1</source>
        <translation>Zahlung %1</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Tickets %1</source>
        <translation>Tickets %1</translation>
    </message>
    <message>
        <source>The printer is offline (%1).</source>
        <translation>Der Drucker ist nicht erreichbar (%1).</translation>
    </message>
    <message>
        <source>The printer stopped taking data (%1).</source>
        <translation>Der Drucker nimmt keine Daten mehr an (%1).</translation>
    </message>
    <message>
        <source>The printer is out of paper or jammed (%1).</source>
        <translation>Der Drucker hat kein Papier oder einen Stau (%1).</translation>
    </message>
    <message>
        <source>ddd d MMM yyyy · HH:mm</source>
        <comment>date format</comment>
        <translation>ddd d. MMM yyyy · HH:mm</translation>
    </message>
    <message>
        <source>ddd d MMM</source>
        <comment>date format</comment>
        <translation>ddd d. MMM</translation>
    </message>
</context>
<context>
    <name>ScreenHeader</name>
    <message>
        <source>Back</source>
        <translation>Zurück</translation>
    </message>
</context>
<context>
    <name>SeatLegend</name>
    <message>
        <source>Wheelchair space</source>
        <translation>Rollstuhlplatz</translation>
    </message>
    <message>
        <source>Your seats</source>
        <translation>Ihre Plätze</translation>
    </message>
    <message>
        <source>Held</source>
        <translation>Reserviert</translation>
    </message>
    <message>
        <source>Sold</source>
        <translation>Verkauft</translation>
    </message>
</context>
<context>
    <name>SeatsScreen</name>
    <message>
        <source>Seat map, %1 of %2 seats free</source>
        <translation>Saalplan, %1 von %2 Plätzen frei</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>Vergrößern</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>Verkleinern</translation>
    </message>
    <message>
        <source>Show the whole room</source>
        <translation>Ganzen Saal zeigen</translation>
    </message>
    <message>
        <source>Loading seats…</source>
        <translation>Plätze werden geladen…</translation>
    </message>
    <message>
        <source>Best seats for</source>
        <translation>Beste Plätze für</translation>
    </message>
    <message>
        <source>Fewer seats</source>
        <translation>Weniger Plätze</translation>
    </message>
    <message numerus="yes">
        <source>%n seat(s)</source>
        <translation>
            <numerusform>%n Platz</numerusform>
            <numerusform>%n Plätze</numerusform>
        </translation>
    </message>
    <message>
        <source>More seats</source>
        <translation>Mehr Plätze</translation>
    </message>
    <message>
        <source>Include a wheelchair space</source>
        <translation>Mit Rollstuhlplatz</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <source>Tap seats on the map</source>
        <translation>Tippen Sie Plätze im Saalplan an</translation>
    </message>
    <message numerus="yes">
        <source>%n seat(s) · %1</source>
        <translation>
            <numerusform>%n Platz · %1</numerusform>
            <numerusform>%n Plätze · %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>Weiter</translation>
    </message>
    <message>
        <source>Tap a block to see its seats</source>
        <translation>Block antippen, um die Plätze zu sehen</translation>
    </message>
    <message>
        <source>Tap to zoom in, then tap your seats</source>
        <translation>Zum Vergrößern antippen, dann Ihre Plätze antippen</translation>
    </message>
</context>
<context>
    <name>SessionGuard</name>
    <message>
        <source>Locked</source>
        <translation>Gesperrt</translation>
    </message>
    <message>
        <source>%1 is signed in. Enter the password to go on.</source>
        <translation>%1 ist angemeldet. Zum Fortfahren das Passwort eingeben.</translation>
    </message>
    <message>
        <source>Unlock</source>
        <translation>Entsperren</translation>
    </message>
    <message>
        <source>Sign out %1</source>
        <translation>%1 abmelden</translation>
    </message>
    <message>
        <source>Confirm it is you</source>
        <translation>Bestätigen Sie, dass Sie es sind</translation>
    </message>
</context>
<context>
    <name>ShowRow</name>
    <message>
        <source>%1 %2, %3 seats left</source>
        <translation>%1 %2, noch %3 Plätze frei</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>Ausverkauft</translation>
    </message>
    <message>
        <source>left</source>
        <translation>frei</translation>
    </message>
</context>
<context>
    <name>ShowsScreen</name>
    <message>
        <source>Choose a time</source>
        <translation>Wählen Sie eine Uhrzeit</translation>
    </message>
    <message>
        <source>Loading show times…</source>
        <translation>Vorstellungen werden geladen…</translation>
    </message>
    <message>
        <source>No more shows of this film today.</source>
        <translation>Heute keine weiteren Vorstellungen dieses Films.</translation>
    </message>
</context>
<context>
    <name>SignInPanel</name>
    <message>
        <source>Box office</source>
        <translation>Kasse</translation>
    </message>
    <message>
        <source>Sign in with your staff name and password.</source>
        <translation>Mit Personalname und Passwort anmelden.</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Staff name</source>
        <translation>Personalname</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Passwort</translation>
    </message>
    <message>
        <source>Password or PIN</source>
        <translation>Passwort oder PIN</translation>
    </message>
    <message>
        <source>Signing in…</source>
        <translation>Anmeldung läuft…</translation>
    </message>
    <message>
        <source>Sign in</source>
        <translation>Anmelden</translation>
    </message>
    <message>
        <source>Locks after %1 minutes without use</source>
        <translation>Sperrt nach %1 Minuten ohne Nutzung</translation>
    </message>
</context>
<context>
    <name>StaffDialog</name>
    <message>
        <source>PIN</source>
        <translation>PIN</translation>
    </message>
    <message>
        <source>Staff PIN</source>
        <translation>Personal-PIN</translation>
    </message>
    <message>
        <source>That PIN is not right.</source>
        <translation>Diese PIN stimmt nicht.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Staff</source>
        <translation>Personal</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
</context>
<context>
    <name>StaffScreen</name>
    <message>
        <source>Staff</source>
        <translation>Personal</translation>
    </message>
    <message numerus="yes">
        <source>Online · %n action(s) waiting</source>
        <translation>
            <numerusform>Online · %n Aktion wartet</numerusform>
            <numerusform>Online · %n Aktionen warten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Offline · %n action(s) waiting</source>
        <translation>
            <numerusform>Offline · %n Aktion wartet</numerusform>
            <numerusform>Offline · %n Aktionen warten</numerusform>
        </translation>
    </message>
    <message>
        <source>Reconciliation with the server</source>
        <translation>Abgleich mit dem Server</translation>
    </message>
    <message>
        <source>Comparing the journals with the server…</source>
        <translation>Die Journale werden mit dem Server verglichen…</translation>
    </message>
    <message>
        <source>Not run yet: it runs after every reconnect.</source>
        <translation>Noch nicht gelaufen: Er läuft nach jeder neuen Verbindung.</translation>
    </message>
    <message>
        <source>Last run %1%2.
Tickets: %3 confirmed, %4 voided, %5 unknown.
Payments: %6 confirmed, %7 refund due, %8 pending.</source>
        <translation>Letzter Lauf %1%2.
Tickets: %3 bestätigt, %4 ungültig, %5 unbekannt.
Zahlungen: %6 bestätigt, %7 zu erstatten, %8 offen.</translation>
    </message>
    <message>
        <source> (incomplete: the server did not answer every question)</source>
        <translation> (unvollständig: Der Server hat nicht jede Frage beantwortet)</translation>
    </message>
    <message>
        <source>Run now</source>
        <translation>Jetzt ausführen</translation>
    </message>
    <message>
        <source>Tickets waiting to be printed</source>
        <translation>Tickets, die auf den Druck warten</translation>
    </message>
    <message>
        <source>None.</source>
        <translation>Keine.</translation>
    </message>
    <message numerus="yes">
        <source>%n seat(s)</source>
        <translation>
            <numerusform>%n Platz</numerusform>
            <numerusform>%n Plätze</numerusform>
        </translation>
    </message>
    <message>
        <source>Print</source>
        <translation>Drucken</translation>
    </message>
    <message>
        <source>Find a booking printed here</source>
        <translation>Eine hier gedruckte Buchung suchen</translation>
    </message>
    <message>
        <source>Booking reference</source>
        <translation>Buchungsnummer</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <source>No booking %1 in this kiosk&apos;s journal.</source>
        <translation>Keine Buchung %1 im Journal dieses Automaten.</translation>
    </message>
    <message numerus="yes">
        <source>%n reprint(s)</source>
        <translation>
            <numerusform>%n Nachdruck</numerusform>
            <numerusform>%n Nachdrucke</numerusform>
        </translation>
    </message>
    <message>
        <source>Reprint</source>
        <translation>Nachdrucken</translation>
    </message>
    <message>
        <source>Check-in at the door</source>
        <translation>Einlass an der Tür</translation>
    </message>
    <message>
        <source>Scan or type a ticket code</source>
        <translation>Ticketcode scannen oder eingeben</translation>
    </message>
    <message>
        <source>Ticket code</source>
        <translation>Ticketcode</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>Back to customers</source>
        <translation>Zurück zum Kundenbetrieb</translation>
    </message>
    <message>
        <source>Exit kiosk</source>
        <translation>Automat beenden</translation>
    </message>
</context>
<context>
    <name>SummaryScreen</name>
    <message>
        <source>Your order</source>
        <translation>Ihre Bestellung</translation>
    </message>
    <message>
        <source>Less than a minute left to pay before your seats are released.</source>
        <translation>Noch weniger als eine Minute, dann werden Ihre Plätze freigegeben.</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Total %1</source>
        <translation>Gesamt %1</translation>
    </message>
    <message>
        <source>Change seats</source>
        <translation>Plätze ändern</translation>
    </message>
    <message>
        <source>Pay by card</source>
        <translation>Mit Karte zahlen</translation>
    </message>
    <message>
        <source>Pay by card at the terminal</source>
        <translation>Mit Karte am Terminal bezahlen</translation>
    </message>
    <message>
        <source>Your tickets and receipt print here</source>
        <translation>Ihre Tickets und der Beleg werden hier gedruckt</translation>
    </message>
    <message>
        <source>Show the QR code at the door</source>
        <translation>Zeigen Sie den QR-Code am Einlass</translation>
    </message>
</context>
<context>
    <name>SyncStatus</name>
    <message>
        <source>Online</source>
        <translation>Online</translation>
    </message>
    <message>
        <source>Offline — browsing only, no sales</source>
        <translation>Offline — nur Ansicht, kein Verkauf</translation>
    </message>
    <message numerus="yes">
        <source>%n action(s) waiting for the server</source>
        <translation>
            <numerusform>%n Aktion wartet auf den Server</numerusform>
            <numerusform>%n Aktionen warten auf den Server</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n need staff</source>
        <translation>
            <numerusform>%n braucht Personal</numerusform>
            <numerusform>%n brauchen Personal</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ThanksScreen</name>
    <message>
        <source>Enjoy the show!</source>
        <translation>Viel Vergnügen!</translation>
    </message>
    <message>
        <source>Booking reference %1</source>
        <translation>Buchungsnummer %1</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>Show time</source>
        <translation>Beginn</translation>
    </message>
    <message>
        <source>Screen</source>
        <translation>Saal</translation>
    </message>
    <message>
        <source>Seats</source>
        <translation>Plätze</translation>
    </message>
    <message>
        <source>1 ticket printed. Please take it and your receipt below.</source>
        <translation>1 Ticket gedruckt. Bitte entnehmen Sie es unten zusammen mit dem Beleg.</translation>
    </message>
    <message>
        <source>%1 tickets printed. Please take them and your receipt below.</source>
        <translation>%1 Tickets gedruckt. Bitte entnehmen Sie sie unten zusammen mit dem Beleg.</translation>
    </message>
</context>
<context>
    <name>TillDone</name>
    <message numerus="yes">
        <source>Sold · %n ticket(s)</source>
        <translation>
            <numerusform>Verkauft · %n Ticket</numerusform>
            <numerusform>Verkauft · %n Tickets</numerusform>
        </translation>
    </message>
    <message>
        <source>GIVE CHANGE</source>
        <translation>WECHSELGELD GEBEN</translation>
    </message>
    <message>
        <source>%1 tendered for %2</source>
        <translation>%1 gegeben für %2</translation>
    </message>
    <message>
        <source>the cash part %1</source>
        <translation>den Baranteil %1</translation>
    </message>
    <message>
        <source>Booking</source>
        <translation>Buchung</translation>
    </message>
    <message>
        <source>Seats</source>
        <translation>Plätze</translation>
    </message>
    <message>
        <source>Paid</source>
        <translation>Bezahlt</translation>
    </message>
    <message>
        <source>Printed</source>
        <translation>Gedruckt</translation>
    </message>
    <message>
        <source>Tickets and receipt</source>
        <translation>Tickets und Beleg</translation>
    </message>
    <message>
        <source>Print again</source>
        <translation>Erneut drucken</translation>
    </message>
    <message>
        <source>Next sale</source>
        <translation>Nächster Verkauf</translation>
    </message>
    <message>
        <source>Sold offline from this till&apos;s leased seats (sale %1): it is reported to the server, and booked, when the link is back.</source>
        <translation>Offline aus den zugeteilten Plätzen dieser Kasse verkauft (Verkauf %1): Er wird dem Server gemeldet und gebucht, sobald die Verbindung wieder steht.</translation>
    </message>
    <message>
        <source>Keep the tickets</source>
        <translation>Tickets behalten</translation>
    </message>
</context>
<context>
    <name>TillLookup</name>
    <message>
        <source>Find a booking</source>
        <translation>Buchung suchen</translation>
    </message>
    <message>
        <source>Type the booking reference, the customer&apos;s phone or e-mail, or scan a ticket&apos;s QR code, then Enter.</source>
        <translation>Buchungsnummer, Telefon oder E-Mail des Kunden eingeben oder den QR-Code eines Tickets scannen, dann Enter.</translation>
    </message>
    <message>
        <source>Reference, phone, e-mail or scan…</source>
        <translation>Buchungsnummer, Telefon, E-Mail oder Scan…</translation>
    </message>
    <message>
        <source>Booking %1</source>
        <translation>Buchung %1</translation>
    </message>
    <message>
        <source>Booking</source>
        <translation>Buchung</translation>
    </message>
    <message>
        <source>Booked %1</source>
        <translation>Gebucht %1</translation>
    </message>
    <message>
        <source>CANCELLED</source>
        <translation>STORNIERT</translation>
    </message>
    <message>
        <source>VALID</source>
        <translation>GÜLTIG</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>Vorstellung</translation>
    </message>
    <message>
        <source>Seats</source>
        <translation>Plätze</translation>
    </message>
    <message>
        <source>Paid</source>
        <translation>Bezahlt</translation>
    </message>
    <message>
        <source>Tickets</source>
        <translation>Tickets</translation>
    </message>
    <message>
        <source>revoked</source>
        <translation>ungültig</translation>
    </message>
    <message numerus="yes">
        <source>%n valid</source>
        <translation>
            <numerusform>%n gültig</numerusform>
            <numerusform>%n gültig</numerusform>
        </translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>REFUND</source>
        <translation>ERSTATTUNG</translation>
    </message>
    <message>
        <source>Reason (required for a manager override)</source>
        <translation>Grund (Pflicht bei Freigabe durch die Leitung)</translation>
    </message>
    <message>
        <source>Reason (optional)</source>
        <translation>Grund (optional)</translation>
    </message>
    <message>
        <source>Manager name</source>
        <translation>Name der Leitung</translation>
    </message>
    <message>
        <source>Manager password</source>
        <translation>Passwort der Leitung</translation>
    </message>
    <message>
        <source>Authorise refund</source>
        <translation>Erstattung freigeben</translation>
    </message>
    <message>
        <source>Cancel and refund</source>
        <translation>Stornieren und erstatten</translation>
    </message>
    <message>
        <source>Reprint tickets</source>
        <translation>Tickets nachdrucken</translation>
    </message>
    <message>
        <source>Nothing looked up yet.</source>
        <translation>Noch nichts gesucht.</translation>
    </message>
    <message>
        <source>Door check-in</source>
        <translation>Einlass</translation>
    </message>
    <message>
        <source>Scan tickets into the field on the left; the answer shows here.</source>
        <translation>Tickets in das Feld links scannen; die Antwort erscheint hier.</translation>
    </message>
    <message>
        <source>Waiting for a scan</source>
        <translation>Warten auf einen Scan</translation>
    </message>
    <message>
        <source>Seat %1 · %2</source>
        <translation>Platz %1 · %2</translation>
    </message>
    <message>
        <source>First scanned at %1</source>
        <translation>Zuerst gescannt um %1</translation>
    </message>
    <message>
        <source>A scanner types like a keyboard: keep the cursor in the search field. Each code is checked by the server once; a second scan of the same ticket shows when it was first used.</source>
        <translation>Ein Scanner tippt wie eine Tastatur: Lassen Sie den Cursor im Suchfeld. Jeder Code wird einmal vom Server geprüft; ein zweiter Scan desselben Tickets zeigt, wann es zuerst benutzt wurde.</translation>
    </message>
</context>
<context>
    <name>TillMain</name>
    <message>
        <source>Marquee — Box office</source>
        <translation>Marquee — Kasse</translation>
    </message>
    <message>
        <source>Box office</source>
        <translation>Kasse</translation>
    </message>
    <message>
        <source>Sell</source>
        <translation>Verkaufen</translation>
    </message>
    <message>
        <source>Find booking</source>
        <translation>Buchung suchen</translation>
    </message>
    <message>
        <source>Shift</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>Shift open since %1</source>
        <translation>Schicht offen seit %1</translation>
    </message>
    <message>
        <source>No shift open</source>
        <translation>Keine Schicht offen</translation>
    </message>
    <message>
        <source>Lock</source>
        <translation>Sperren</translation>
    </message>
    <message>
        <source>Sign out</source>
        <translation>Abmelden</translation>
    </message>
    <message>
        <source>Sign in to sell tickets, find bookings and run your shift.</source>
        <translation>Anmelden, um Tickets zu verkaufen, Buchungen zu suchen und die Schicht zu führen.</translation>
    </message>
</context>
<context>
    <name>TillSale</name>
    <message>
        <source>Today</source>
        <translation>Heute</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Wird geladen…</translation>
    </message>
    <message numerus="yes">
        <source>%n show(s) on sale · ↑ ↓ to choose</source>
        <translation>
            <numerusform>%n Vorstellung im Verkauf · ↑ ↓ zum Wählen</numerusform>
            <numerusform>%n Vorstellungen im Verkauf · ↑ ↓ zum Wählen</numerusform>
        </translation>
    </message>
    <message>
        <source>No show chosen</source>
        <translation>Keine Vorstellung gewählt</translation>
    </message>
    <message>
        <source>%1 of %2 free</source>
        <translation>%1 von %2 frei</translation>
    </message>
    <message>
        <source>Seat %1 — Space to pick it, Esc to drop it</source>
        <translation>Platz %1 — Leertaste zum Wählen, Esc zum Verwerfen</translation>
    </message>
    <message>
        <source>Seat map</source>
        <translation>Saalplan</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>Vergrößern</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>Verkleinern</translation>
    </message>
    <message>
        <source>Whole room</source>
        <translation>Ganzer Saal</translation>
    </message>
    <message>
        <source>Loading seats…</source>
        <translation>Plätze werden geladen…</translation>
    </message>
    <message>
        <source>held</source>
        <translation>reserviert</translation>
    </message>
    <message>
        <source>sold</source>
        <translation>verkauft</translation>
    </message>
    <message>
        <source>in this sale</source>
        <translation>in diesem Verkauf</translation>
    </message>
    <message>
        <source>Sale</source>
        <translation>Verkauf</translation>
    </message>
    <message numerus="yes">
        <source>%n seat(s)</source>
        <translation>
            <numerusform>%n Platz</numerusform>
            <numerusform>%n Plätze</numerusform>
        </translation>
    </message>
    <message>
        <source>No seats yet</source>
        <translation>Noch keine Plätze</translation>
    </message>
    <message>
        <source>BEST SEATS TOGETHER</source>
        <translation>BESTE PLÄTZE NEBENEINANDER</translation>
    </message>
    <message>
        <source>Press a number for the best seats together, type a seat (F7, Space), or click seats on the map.</source>
        <translation>Eine Zahl für die besten Plätze nebeneinander drücken, einen Platz eintippen (F7, Leertaste) oder Plätze im Plan anklicken.</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Holding…</source>
        <translation>Wird reserviert…</translation>
    </message>
    <message>
        <source>Take payment</source>
        <translation>Kassieren</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <source>not leased to this till · leased here: %1</source>
        <translation>dieser Kasse nicht zugeteilt · hier zugeteilt: %1</translation>
    </message>
    <message>
        <source>not leased to this till · no seats of this show are leased here</source>
        <translation>dieser Kasse nicht zugeteilt · von dieser Vorstellung ist hier kein Platz zugeteilt</translation>
    </message>
</context>
<context>
    <name>TillShift</name>
    <message>
        <source>Shift open since %1</source>
        <translation>Schicht offen seit %1</translation>
    </message>
    <message>
        <source>Open a shift</source>
        <translation>Schicht öffnen</translation>
    </message>
    <message>
        <source>Count the drawer and close to print the Z-report.</source>
        <translation>Kassenlade zählen und schließen, um den Z-Bericht zu drucken.</translation>
    </message>
    <message>
        <source>Count the float into the drawer, type it and press Enter.</source>
        <translation>Wechselgeld in die Kassenlade zählen, Betrag eingeben und Enter drücken.</translation>
    </message>
    <message>
        <source>OPENING FLOAT</source>
        <translation>ANFANGSBESTAND</translation>
    </message>
    <message>
        <source>Open shift</source>
        <translation>Schicht öffnen</translation>
    </message>
    <message>
        <source>Opening float</source>
        <translation>Anfangsbestand</translation>
    </message>
    <message>
        <source>Cash sales</source>
        <translation>Barverkäufe</translation>
    </message>
    <message>
        <source>Card sales</source>
        <translation>Kartenverkäufe</translation>
    </message>
    <message>
        <source>Cash refunds</source>
        <translation>Bar-Erstattungen</translation>
    </message>
    <message>
        <source>Card refunds</source>
        <translation>Karten-Erstattungen</translation>
    </message>
    <message>
        <source>Cash in · out</source>
        <translation>Einlage · Entnahme</translation>
    </message>
    <message>
        <source>Sales · refunds · voids</source>
        <translation>Verkäufe · Erstattungen · Stornos</translation>
    </message>
    <message>
        <source>Expected cash in the drawer</source>
        <translation>Erwarteter Bargeldbestand</translation>
    </message>
    <message>
        <source>COUNTED CASH</source>
        <translation>GEZÄHLTES BARGELD</translation>
    </message>
    <message>
        <source>Open drawer</source>
        <translation>Kassenlade öffnen</translation>
    </message>
    <message>
        <source>Close shift</source>
        <translation>Schicht schließen</translation>
    </message>
    <message>
        <source>CASH IN OR OUT</source>
        <translation>EINLAGE ODER ENTNAHME</translation>
    </message>
    <message>
        <source>reason, e.g. float top-up</source>
        <translation>Grund, z. B. Auffüllen</translation>
    </message>
    <message>
        <source>In</source>
        <translation>Einlage</translation>
    </message>
    <message>
        <source>Out</source>
        <translation>Entnahme</translation>
    </message>
    <message>
        <source>Z-report</source>
        <translation>Z-Bericht</translation>
    </message>
    <message>
        <source>%1 · closed %2</source>
        <translation>%1 · geschlossen %2</translation>
    </message>
    <message>
        <source>Printed when the shift closes.</source>
        <translation>Wird beim Schließen der Schicht gedruckt.</translation>
    </message>
    <message>
        <source>Print again</source>
        <translation>Erneut drucken</translation>
    </message>
    <message>
        <source>Z-REPORT</source>
        <translation>Z-BERICHT</translation>
    </message>
    <message>
        <source>Sales</source>
        <translation>Verkäufe</translation>
    </message>
    <message>
        <source>Total sales</source>
        <translation>Verkäufe gesamt</translation>
    </message>
    <message>
        <source>Refunds</source>
        <translation>Erstattungen</translation>
    </message>
    <message>
        <source>Voids</source>
        <translation>Stornos</translation>
    </message>
    <message>
        <source>Cash in</source>
        <translation>Einlagen</translation>
    </message>
    <message>
        <source>Cash out</source>
        <translation>Entnahmen</translation>
    </message>
    <message>
        <source>Expected cash</source>
        <translation>Erwartetes Bargeld</translation>
    </message>
    <message>
        <source>Counted cash</source>
        <translation>Gezähltes Bargeld</translation>
    </message>
    <message>
        <source>Over / short</source>
        <translation>Überschuss / Fehlbetrag</translation>
    </message>
    <message>
        <source>No Z-report yet for this till.</source>
        <translation>Für diese Kasse gibt es noch keinen Z-Bericht.</translation>
    </message>
    <message>
        <source>Offline sales not on the server&apos;s shift yet</source>
        <translation>Offline-Verkäufe, noch nicht in der Schicht des Servers</translation>
    </message>
    <message>
        <source>Offline sale %1 refused (%2)</source>
        <translation>Offline-Verkauf %1 abgelehnt (%2)</translation>
    </message>
</context>
<context>
    <name>TillTender</name>
    <message>
        <source>Order</source>
        <translation>Bestellung</translation>
    </message>
    <message>
        <source>Seat %1 · %2</source>
        <translation>Platz %1 · %2</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Seats held for %1:%2</source>
        <translation>Plätze reserviert für %1:%2</translation>
    </message>
    <message>
        <source>Void sale</source>
        <translation>Verkauf stornieren</translation>
    </message>
    <message>
        <source>Payment</source>
        <translation>Bezahlung</translation>
    </message>
    <message>
        <source>Cash: type the amount handed over and press Enter (empty = exact). Card: F4. Part cash, part card: F5.</source>
        <translation>Bar: gegebenen Betrag eingeben und Enter drücken (leer = passend). Karte: F4. Teils bar, teils Karte: F5.</translation>
    </message>
    <message>
        <source>CASH TENDERED</source>
        <translation>GEGEBEN (BAR)</translation>
    </message>
    <message>
        <source>(exact)</source>
        <translation>(passend)</translation>
    </message>
    <message>
        <source>CUSTOMER</source>
        <translation>KUNDE</translation>
    </message>
    <message>
        <source>phone or e-mail, to find the booking later (optional)</source>
        <translation>Telefon oder E-Mail, um die Buchung später zu finden (optional)</translation>
    </message>
    <message>
        <source>SPLIT · CASH PART</source>
        <translation>GETEILT · BARANTEIL</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <source>then %1 on the card</source>
        <translation>dann %1 mit Karte</translation>
    </message>
    <message>
        <source>above 0 and below the total</source>
        <translation>über 0 und unter dem Gesamtbetrag</translation>
    </message>
    <message>
        <source>CHANGE DUE</source>
        <translation>RÜCKGELD</translation>
    </message>
    <message>
        <source>Booking…</source>
        <translation>Wird gebucht…</translation>
    </message>
    <message>
        <source>Cash</source>
        <translation>Bar</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>Geteilt</translation>
    </message>
    <message>
        <source>Card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>Cash part taken. Card for %1: insert, tap or swipe</source>
        <translation>Baranteil erhalten. Karte für %1: einstecken, auflegen oder durchziehen</translation>
    </message>
    <message>
        <source>Customer: insert, tap or swipe the card on the terminal</source>
        <translation>Kunde: Karte am Terminal einstecken, auflegen oder durchziehen</translation>
    </message>
    <message>
        <source>Card approved, booking the seats…</source>
        <translation>Karte genehmigt, Plätze werden gebucht…</translation>
    </message>
    <message>
        <source>Terminal simulator:</source>
        <translation>Terminal-Simulator:</translation>
    </message>
    <message>
        <source>Visa, approved</source>
        <translation>Visa, genehmigt</translation>
    </message>
    <message>
        <source>Declined card</source>
        <translation>Abgelehnte Karte</translation>
    </message>
    <message>
        <source>Abort</source>
        <translation>Abbrechen</translation>
    </message>
</context>
<context>
    <name>marquee::app::DeskController</name>
    <message>
        <source>override</source>
        <translation>Freigabe</translation>
    </message>
    <message>
        <source>staff cancel</source>
        <translation>Personalstorno</translation>
    </message>
    <message>
        <source>till cancel</source>
        <translation>Kassenstorno</translation>
    </message>
    <message>
        <source>reconciler</source>
        <translation>Abgleich</translation>
    </message>
    <message>
        <source>refunded at the provider</source>
        <translation>beim Anbieter erstattet</translation>
    </message>
    <message>
        <source>hold lost</source>
        <translation>Platz verloren</translation>
    </message>
    <message>
        <source>paid too late</source>
        <translation>zu spät bezahlt</translation>
    </message>
    <message>
        <source>(no reason given)</source>
        <translation>(kein Grund angegeben)</translation>
    </message>
    <message>
        <source>server (confirm)</source>
        <translation>Server (Bestätigung)</translation>
    </message>
    <message>
        <source>server (webhook)</source>
        <translation>Server (Webhook)</translation>
    </message>
    <message>
        <source>server (reconciler)</source>
        <translation>Server (Abgleich)</translation>
    </message>
    <message>
        <source>server (release)</source>
        <translation>Server (Freigabe)</translation>
    </message>
    <message>
        <source>payment provider</source>
        <translation>Zahlungsdienst</translation>
    </message>
    <message>
        <source>server</source>
        <translation>Server</translation>
    </message>
    <message>
        <source>%1 (sale)</source>
        <translation>%1 (Verkauf)</translation>
    </message>
    <message>
        <source>order %1</source>
        <translation>Bestellung %1</translation>
    </message>
    <message>
        <source>refunded</source>
        <translation>erstattet</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>offen</translation>
    </message>
    <message>
        <source>Bookings</source>
        <translation>Buchungen</translation>
    </message>
    <message>
        <source>Tickets</source>
        <translation>Tickets</translation>
    </message>
    <message>
        <source>Revenue</source>
        <translation>Umsatz</translation>
    </message>
    <message>
        <source>Refunds</source>
        <translation>Erstattungen</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>Erstattet</translation>
    </message>
    <message>
        <source>Net</source>
        <translation>Netto</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>Tag</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>Vorstellung</translation>
    </message>
    <message>
        <source>Movie</source>
        <translation>Film</translation>
    </message>
    <message>
        <source>Channel</source>
        <translation>Kanal</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Starts</source>
        <translation>Beginn</translation>
    </message>
    <message>
        <source>Screen</source>
        <translation>Saal</translation>
    </message>
    <message>
        <source>Seats</source>
        <translation>Sitze</translation>
    </message>
    <message>
        <source>Sold</source>
        <translation>Verk.</translation>
    </message>
    <message>
        <source>Held</source>
        <translation>Res.</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>Ausl.</translation>
    </message>
    <message>
        <source>Prices</source>
        <translation>Preise</translation>
    </message>
    <message>
        <source>Waiting room</source>
        <translation>Warteraum</translation>
    </message>
    <message>
        <source>When</source>
        <translation>Wann</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Betrag</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Paid by</source>
        <translation>Bezahlt mit</translation>
    </message>
    <message>
        <source>Booking</source>
        <translation>Buchung</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>By</source>
        <translation>Von</translation>
    </message>
    <message>
        <source>Order</source>
        <translation>Bestellung</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Last seen</source>
        <translation>Zuletzt gesehen</translation>
    </message>
    <message>
        <source>Printer</source>
        <translation>Drucker</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>Version</translation>
    </message>
    <message>
        <source>Reconciled</source>
        <translation>Abgeglichen</translation>
    </message>
    <message>
        <source>Tickets ok / void / ?</source>
        <translation>Tickets ok / ungültig / ?</translation>
    </message>
    <message>
        <source>Payments ok / refund / open</source>
        <translation>Zahlungen ok / Erstattung / offen</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>Probleme</translation>
    </message>
    <message>
        <source>Enrolled</source>
        <translation>Angemeldet</translation>
    </message>
    <message>
        <source>Waiting for</source>
        <translation>Wartet auf</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Since</source>
        <translation>Seit</translation>
    </message>
    <message>
        <source>Refund reason</source>
        <translation>Erstattungsgrund</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>Wer</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>Opened</source>
        <translation>Geöffnet</translation>
    </message>
    <message>
        <source>Cashier</source>
        <translation>Kassierer/in</translation>
    </message>
    <message>
        <source>Closed</source>
        <translation>Geschlossen</translation>
    </message>
    <message>
        <source>Float</source>
        <translation>Wechselgeld</translation>
    </message>
    <message>
        <source>Expected</source>
        <translation>Erwartet</translation>
    </message>
    <message>
        <source>Counted</source>
        <translation>Gezählt</translation>
    </message>
    <message>
        <source>Over/short</source>
        <translation>Differenz</translation>
    </message>
    <message>
        <source>%1: the server cannot be reached.</source>
        <translation>%1: Der Server ist nicht erreichbar.</translation>
    </message>
    <message>
        <source>%1: this server does not offer it yet.</source>
        <translation>%1: Dieser Server bietet das noch nicht an.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Choose a range with valid dates, the first not after the last (YYYY-MM-DD).</source>
        <translation>Wählen Sie einen Zeitraum mit gültigen Daten, das erste nicht nach dem letzten (JJJJ-MM-TT).</translation>
    </message>
    <message>
        <source>Sales report</source>
        <translation>Verkaufsbericht</translation>
    </message>
    <message>
        <source>ddd d MMM</source>
        <comment>date format</comment>
        <translation>ddd d. MMM</translation>
    </message>
    <message>
        <source>Shows</source>
        <translation>Vorstellungen</translation>
    </message>
    <message>
        <source>Kiosk fleet</source>
        <translation>Automaten</translation>
    </message>
    <message>
        <source>Payment</source>
        <translation>Zahlung</translation>
    </message>
    <message>
        <source>Ticket</source>
        <translation>Ticket</translation>
    </message>
    <message>
        <source>revoked</source>
        <translation>ungültig</translation>
    </message>
    <message>
        <source>offline</source>
        <translation>offline</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>prüfen</translation>
    </message>
    <message>
        <source>healthy</source>
        <translation>in Ordnung</translation>
    </message>
    <message>
        <source>Audit log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Showing the newest %1 of %2 entries in this range. Load more, or narrow the range.</source>
        <translation>Angezeigt werden die neuesten %1 von %2 Einträgen im Zeitraum. Mehr laden oder den Zeitraum verkleinern.</translation>
    </message>
    <message>
        <source>Refunds: the newest %1 of the range are listed; choose a shorter range to see the rest.</source>
        <translation>Erstattungen: Die neuesten %1 des Zeitraums sind aufgeführt; wählen Sie einen kürzeren Zeitraum für den Rest.</translation>
    </message>
    <message>
        <source>Payments awaiting reconciliation</source>
        <translation>Zahlungen im Abgleich</translation>
    </message>
    <message>
        <source>refund</source>
        <translation>Erstattung</translation>
    </message>
    <message>
        <source>booking</source>
        <translation>Buchung</translation>
    </message>
    <message>
        <source>payment start</source>
        <translation>Zahlungsbeginn</translation>
    </message>
    <message>
        <source>provider answer</source>
        <translation>Antwort des Zahlungsdiensts</translation>
    </message>
    <message>
        <source>This server does not report shifts yet.</source>
        <translation>Dieser Server meldet noch keine Schichten.</translation>
    </message>
    <message>
        <source>Occupancy</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>ddd d MMM HH:mm</source>
        <comment>date format</comment>
        <translation>ddd d. MMM HH:mm</translation>
    </message>
    <message>
        <source>House holds</source>
        <translation>Hauskontingent</translation>
    </message>
    <message>
        <source>d MMM HH:mm</source>
        <comment>date format</comment>
        <translation>d. MMM HH:mm</translation>
    </message>
    <message>
        <source>A house hold needs seats (for example A4 A5) and a reason.</source>
        <translation>Für das Hauskontingent braucht es Plätze (zum Beispiel A4 A5) und einen Grund.</translation>
    </message>
    <message>
        <source>Nothing was held: %1 is already held or sold.</source>
        <translation>Nichts wurde gesperrt: %1 ist schon reserviert oder verkauft.</translation>
    </message>
    <message>
        <source>House hold</source>
        <translation>Hauskontingent</translation>
    </message>
    <message numerus="yes">
        <source>%n seat(s) kept back for house use: %1.</source>
        <translation>
            <numerusform>%n Platz für das Haus zurückgehalten: %1.</numerusform>
            <numerusform>%n Plätze für das Haus zurückgehalten: %1.</numerusform>
        </translation>
    </message>
    <message>
        <source>Releasing the house hold</source>
        <translation>Hauskontingent wird freigegeben</translation>
    </message>
    <message>
        <source>House hold released; the seats are on sale again.</source>
        <translation>Hauskontingent freigegeben; die Plätze sind wieder im Verkauf.</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n row(s) to %1</source>
        <translation>
            <numerusform>%n Zeile nach %1 exportiert</numerusform>
            <numerusform>%n Zeilen nach %1 exportiert</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a movie and a screen.</source>
        <translation>Wählen Sie einen Film und einen Saal.</translation>
    </message>
    <message>
        <source>The currency is a three-letter code such as INR or EUR.</source>
        <translation>Die Währung ist ein Code aus drei Buchstaben wie INR oder EUR.</translation>
    </message>
    <message>
        <source>The start is a date and time like 2026-12-05 19:30 (%1 time).</source>
        <translation>Der Beginn ist ein Datum mit Uhrzeit wie 2026-12-05 19:30 (Zeit %1).</translation>
    </message>
    <message>
        <source>%1 does not exist in %2: the clocks go forward that night. Choose a time an hour later.</source>
        <translation>%1 gibt es in %2 nicht: In dieser Nacht wird die Uhr vorgestellt. Wählen Sie eine Stunde später.</translation>
    </message>
    <message>
        <source>The %1 price “%2” is not an amount.</source>
        <translation>Der Preis „%2“ für %1 ist kein Betrag.</translation>
    </message>
    <message>
        <source>Give each seat tier a price.</source>
        <translation>Geben Sie jeder Platzkategorie einen Preis.</translation>
    </message>
    <message>
        <source>Creating the show</source>
        <translation>Vorstellung wird angelegt</translation>
    </message>
    <message>
        <source>Show %1 created.</source>
        <translation>Vorstellung %1 angelegt.</translation>
    </message>
    <message>
        <source>Nothing to change.</source>
        <translation>Nichts zu ändern.</translation>
    </message>
    <message>
        <source>Saving the show</source>
        <translation>Vorstellung wird gespeichert</translation>
    </message>
    <message>
        <source>Show %1 saved.</source>
        <translation>Vorstellung %1 gespeichert.</translation>
    </message>
    <message>
        <source>switched on at the desk</source>
        <translation>von der Leitung eingeschaltet</translation>
    </message>
    <message>
        <source>switched off at the desk</source>
        <translation>von der Leitung ausgeschaltet</translation>
    </message>
    <message>
        <source>Switching the waiting room</source>
        <translation>Warteraum wird umgeschaltet</translation>
    </message>
    <message>
        <source>Waiting room on for show %1.</source>
        <translation>Warteraum für Vorstellung %1 eingeschaltet.</translation>
    </message>
    <message>
        <source>Waiting room off for show %1.</source>
        <translation>Warteraum für Vorstellung %1 ausgeschaltet.</translation>
    </message>
    <message>
        <source>Show</source>
        <comment>the column of show numbers</comment>
        <translation>Nr.</translation>
    </message>
    <message>
        <source>Queue</source>
        <comment>the column of queued offline actions</comment>
        <translation>Offen</translation>
    </message>
</context>
<context>
    <name>marquee::app::DeskLeases</name>
    <message>
        <source>Till %1</source>
        <translation>Kasse %1</translation>
    </message>
    <message>
        <source>active</source>
        <translation>aktiv</translation>
    </message>
    <message>
        <source>revoked, waiting for the till</source>
        <translation>widerrufen, wartet auf die Kasse</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>abgelaufen</translation>
    </message>
    <message>
        <source>unreported</source>
        <translation>nicht gemeldet</translation>
    </message>
    <message>
        <source>returned</source>
        <translation>zurückgegeben</translation>
    </message>
    <message>
        <source>The leases of %1 could not be read: %2</source>
        <translation>Die Kontingente von %1 konnten nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The lease was not changed: %1</source>
        <translation>Das Kontingent wurde nicht geändert: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n unreported seat(s) are on sale again.</source>
        <translation>
            <numerusform>%n nicht gemeldeter Platz ist wieder im Verkauf.</numerusform>
            <numerusform>%n nicht gemeldete Plätze sind wieder im Verkauf.</numerusform>
        </translation>
    </message>
    <message>
        <source>Lease revoked: the till sells no more from it; its seats stay off sale until it reports its offline sales.</source>
        <translation>Kontingent widerrufen: Die Kasse verkauft daraus nichts mehr; seine Plätze bleiben gesperrt, bis sie ihre Offline-Verkäufe meldet.</translation>
    </message>
    <message numerus="yes">
        <source>The lease is closed; %n seat(s) are on sale again.</source>
        <translation>
            <numerusform>Das Kontingent ist geschlossen; %n Platz ist wieder im Verkauf.</numerusform>
            <numerusform>Das Kontingent ist geschlossen; %n Plätze sind wieder im Verkauf.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>marquee::app::DevicePairing</name>
    <message>
        <source>The server at %1 cannot be reached (%2). Check the address and the network, then try again.</source>
        <translation>Der Server unter %1 ist nicht erreichbar (%2). Prüfen Sie Adresse und Netzwerk und versuchen Sie es dann noch einmal.</translation>
    </message>
    <message>
        <source>“%1” is not a server address. Type it like https://tickets.venue.example.</source>
        <translation>„%1“ ist keine Serveradresse. Geben Sie sie etwa als https://tickets.venue.example ein.</translation>
    </message>
    <message>
        <source>Plain http:// to another machine is refused: anyone on the network could read the code and the token. Use https:// and the venue certificate fingerprint.</source>
        <translation>Unverschlüsseltes http:// zu einem anderen Rechner wird abgelehnt: Jeder im Netzwerk könnte Code und Token mitlesen. Verwenden Sie https:// und den Fingerabdruck des Zertifikats des Hauses.</translation>
    </message>
    <message>
        <source>A pairing code is 8 letters and digits, like 7K3M-Q9TZ.</source>
        <translation>Ein Kopplungscode besteht aus 8 Buchstaben und Ziffern, etwa 7K3M-Q9TZ.</translation>
    </message>
    <message>
        <source>A certificate fingerprint is 64 hexadecimal digits (SHA-256), pairs may be separated by colons, as marquee-admin prints it.</source>
        <translation>Ein Zertifikats-Fingerabdruck besteht aus 64 Hexadezimalziffern (SHA-256), paarweise durch Doppelpunkte getrennt, wie marquee-admin ihn druckt.</translation>
    </message>
    <message>
        <source>The venue CA file %1 cannot be read or holds no certificate.</source>
        <translation>Die CA-Datei des Hauses %1 ist nicht lesbar oder enthält kein Zertifikat.</translation>
    </message>
    <message>
        <source>The venue CA file %1 does not have the fingerprint you typed. Do not pair: check both with the manager (marquee-admin tls show).</source>
        <translation>Die CA-Datei des Hauses %1 hat nicht den eingegebenen Fingerabdruck. Nicht koppeln: Prüfen Sie beides mit der Leitung (marquee-admin tls show).</translation>
    </message>
    <message>
        <source>This server has no venue certificate to check the fingerprint against (marquee-server --venue-ca-file). Ask the manager.</source>
        <translation>Dieser Server hat kein Zertifikat des Hauses, mit dem der Fingerabdruck verglichen werden kann (marquee-server --venue-ca-file). Fragen Sie die Leitung.</translation>
    </message>
    <message>
        <source>The server did not send its venue certificate (%1). Check the address.</source>
        <translation>Der Server hat sein Zertifikat des Hauses nicht gesendet (%1). Prüfen Sie die Adresse.</translation>
    </message>
    <message>
        <source>The server&apos;s venue certificate does not have the fingerprint you typed. Do not pair: check the fingerprint with the manager (marquee-admin tls show) and the server address.</source>
        <translation>Das Zertifikat des Hauses, das der Server sendet, hat nicht den eingegebenen Fingerabdruck. Nicht koppeln: Prüfen Sie den Fingerabdruck mit der Leitung (marquee-admin tls show) und die Serveradresse.</translation>
    </message>
    <message>
        <source>The server&apos;s certificate is not trusted by this device. Type the venue certificate fingerprint (printed with the code, and by marquee-admin tls show) and try again.</source>
        <translation>Dieses Gerät vertraut dem Zertifikat des Servers nicht. Geben Sie den Fingerabdruck des Zertifikats des Hauses ein (mit dem Code gedruckt und von marquee-admin tls show) und versuchen Sie es noch einmal.</translation>
    </message>
    <message>
        <source>The server at %1 does not prove that it belongs to the venue certificate (its certificate is not signed by it, or not for this address). Check the address with the manager.</source>
        <translation>Der Server unter %1 weist nicht nach, dass er zum Zertifikat des Hauses gehört (sein Zertifikat ist nicht davon signiert oder nicht für diese Adresse). Prüfen Sie die Adresse mit der Leitung.</translation>
    </message>
    <message>
        <source>This pairing code is not known. Check it (letters and digits as printed) or ask for a new one.</source>
        <translation>Dieser Kopplungscode ist unbekannt. Prüfen Sie ihn (Buchstaben und Ziffern wie gedruckt) oder fragen Sie nach einem neuen.</translation>
    </message>
    <message>
        <source>This pairing code was used already. Ask the manager for a new code.</source>
        <translation>Dieser Kopplungscode wurde schon verwendet. Bitten Sie die Leitung um einen neuen Code.</translation>
    </message>
    <message>
        <source>This pairing code has expired (codes are valid for 15 minutes). Ask the manager for a new code.</source>
        <translation>Dieser Kopplungscode ist abgelaufen (Codes gelten 15 Minuten). Bitten Sie die Leitung um einen neuen Code.</translation>
    </message>
    <message>
        <source>A device of this code&apos;s name was enrolled meanwhile. Ask the manager for a new code.</source>
        <translation>Inzwischen wurde ein Gerät mit dem Namen dieses Codes angemeldet. Bitten Sie die Leitung um einen neuen Code.</translation>
    </message>
    <message numerus="yes">
        <source>Too many wrong pairing codes lately: pairing is locked for %n more minute(s). Wait, then try again.</source>
        <translation>
            <numerusform>Zu viele falsche Kopplungscodes in letzter Zeit: Koppeln ist noch %n Minute gesperrt. Warten Sie und versuchen Sie es dann noch einmal.</numerusform>
            <numerusform>Zu viele falsche Kopplungscodes in letzter Zeit: Koppeln ist noch %n Minuten gesperrt. Warten Sie und versuchen Sie es dann noch einmal.</numerusform>
        </translation>
    </message>
    <message>
        <source>The server could not pair this device now (%1). Try again with the same code.</source>
        <translation>Der Server konnte dieses Gerät gerade nicht koppeln (%1). Versuchen Sie es mit demselben Code noch einmal.</translation>
    </message>
    <message>
        <source>The server paired a device this app cannot be (role “%1”). Ask the manager.</source>
        <translation>Der Server hat ein Gerät gekoppelt, das diese App nicht sein kann (Rolle „%1“). Fragen Sie die Leitung.</translation>
    </message>
    <message>
        <source>Paired, but the credentials could not be saved (%1). Ask the manager for a new code.</source>
        <translation>Gekoppelt, aber die Zugangsdaten konnten nicht gespeichert werden (%1). Bitten Sie die Leitung um einen neuen Code.</translation>
    </message>
    <message>
        <source>The fingerprint typed is not the one in the scanned pairing code: check which is the venue&apos;s.</source>
        <translation>Der eingegebene Fingerabdruck ist nicht der aus dem gescannten Kopplungscode: Prüfen Sie, welcher der des Veranstaltungsorts ist.</translation>
    </message>
</context>
<context>
    <name>marquee::app::JsonTableModel</name>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>dd MMM yyyy HH:mm</source>
        <comment>date format</comment>
        <translation>dd.MM.yyyy HH:mm</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
</context>
<context>
    <name>marquee::app::KioskController</name>
    <message numerus="yes">
        <source>Sorry, %n of your seats was just taken by someone else.</source>
        <translation>
            <numerusform>Leider wurde gerade %n Ihrer Plätze von jemand anderem genommen.</numerusform>
            <numerusform>Leider wurden gerade %n Ihrer Plätze von jemand anderem genommen.</numerusform>
        </translation>
    </message>
    <message>
        <source>This kiosk is offline. Please visit the box office.</source>
        <translation>Dieser Automat ist offline. Bitte gehen Sie zur Kasse.</translation>
    </message>
    <message>
        <source>The programme could not be loaded.</source>
        <translation>Das Programm konnte nicht geladen werden.</translation>
    </message>
    <message numerus="yes">
        <source>%n min</source>
        <translation>
            <numerusform>%n Min.</numerusform>
            <numerusform>%n Min.</numerusform>
        </translation>
    </message>
    <message>
        <source>The show times could not be loaded.</source>
        <translation>Die Vorstellungen konnten nicht geladen werden.</translation>
    </message>
    <message numerus="yes">
        <source>You can book up to %n seats at a time.</source>
        <translation>
            <numerusform>Sie können höchstens %n Platz auf einmal buchen.</numerusform>
            <numerusform>Sie können höchstens %n Plätze auf einmal buchen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>There is no wheelchair space with %n seat(s) together left. Please ask at the box office.</source>
        <translation>
            <numerusform>Es gibt keinen Rollstuhlplatz mit %n Platz mehr. Bitte fragen Sie an der Kasse.</numerusform>
            <numerusform>Es gibt keinen Rollstuhlplatz mit %n Plätzen nebeneinander mehr. Bitte fragen Sie an der Kasse.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>There are no %n seats together left. Try fewer seats or pick them on the map.</source>
        <translation>
            <numerusform>Es gibt keinen freien Einzelplatz mehr. Wählen Sie im Saalplan.</numerusform>
            <numerusform>Es gibt keine %n Plätze nebeneinander mehr. Versuchen Sie weniger Plätze oder wählen Sie im Saalplan.</numerusform>
        </translation>
    </message>
    <message>
        <source>Sorry, someone just took %1. We have picked the nearest free seats for you.</source>
        <translation>Leider hat gerade jemand %1 genommen. Wir haben die nächsten freien Plätze für Sie ausgewählt.</translation>
    </message>
    <message>
        <source>Sorry, someone just took %1. Please choose other seats.</source>
        <translation>Leider hat gerade jemand %1 genommen. Bitte wählen Sie andere Plätze.</translation>
    </message>
    <message>
        <source>These seats cannot be booked here (%1). Please choose others.</source>
        <translation>Diese Plätze können hier nicht gebucht werden (%1). Bitte wählen Sie andere.</translation>
    </message>
    <message>
        <source>Time ran out and your seats were released. You can choose them again.</source>
        <translation>Die Zeit ist abgelaufen und Ihre Plätze wurden freigegeben. Sie können sie erneut wählen.</translation>
    </message>
    <message>
        <source>Row %1 Seat %2</source>
        <translation>Reihe %1 Platz %2</translation>
    </message>
    <message>
        <source>Card payments are not available at this kiosk right now. Please visit the box office.</source>
        <translation>An diesem Automaten ist Kartenzahlung gerade nicht möglich. Bitte gehen Sie zur Kasse.</translation>
    </message>
    <message>
        <source>Your seats were released. Please choose them again.</source>
        <translation>Ihre Plätze wurden freigegeben. Bitte wählen Sie sie erneut.</translation>
    </message>
    <message>
        <source>Card payment is not possible right now. Please visit the box office.</source>
        <translation>Kartenzahlung ist gerade nicht möglich. Bitte gehen Sie zur Kasse.</translation>
    </message>
    <message>
        <source>Your card was declined. You can try again or use another card.</source>
        <translation>Ihre Karte wurde abgelehnt. Versuchen Sie es noch einmal oder mit einer anderen Karte.</translation>
    </message>
    <message>
        <source>No card was presented. You can try again.</source>
        <translation>Es wurde keine Karte vorgelegt. Sie können es noch einmal versuchen.</translation>
    </message>
    <message>
        <source>The card terminal is not working. You can try again or visit the box office.</source>
        <translation>Das Kartenterminal funktioniert nicht. Versuchen Sie es noch einmal oder gehen Sie zur Kasse.</translation>
    </message>
    <message>
        <source>Sorry, your seats were released before the payment finished. Your payment will be refunded automatically.</source>
        <translation>Leider wurden Ihre Plätze vor Abschluss der Zahlung freigegeben. Ihre Zahlung wird automatisch erstattet.</translation>
    </message>
    <message>
        <source>card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>The printer has a problem: %1 Your booking %2 is safe; staff can reprint it.</source>
        <translation>Der Drucker hat ein Problem: %1 Ihre Buchung %2 ist sicher; das Personal kann sie erneut drucken.</translation>
    </message>
    <message>
        <source>This kiosk is offline: you can look at the programme, but tickets are sold at the box office until we are back.</source>
        <translation>Dieser Automat ist offline: Sie können das Programm ansehen, Tickets gibt es bis auf Weiteres an der Kasse.</translation>
    </message>
    <message>
        <source>offline</source>
        <translation>offline</translation>
    </message>
    <message>
        <source>This kiosk is offline: tickets are sold at the box office until we are back.</source>
        <translation>Dieser Automat ist offline: Tickets gibt es bis auf Weiteres an der Kasse.</translation>
    </message>
    <message>
        <source>Sorry, your seats were taken by someone else meanwhile. Please choose others.</source>
        <translation>Leider wurden Ihre Plätze inzwischen von jemand anderem gebucht. Bitte wählen Sie andere.</translation>
    </message>
    <message>
        <source>Your payment was taken but the booking could not be finished yet. It is saved at this kiosk and completed automatically; please visit the box office with your order reference %1.</source>
        <translation>Ihre Zahlung ist eingegangen, die Buchung konnte aber noch nicht abgeschlossen werden. Sie ist an diesem Automaten gespeichert und wird automatisch abgeschlossen; bitte gehen Sie mit Ihrer Bestellnummer %1 zur Kasse.</translation>
    </message>
    <message>
        <source>Paid after the customer was sent to the box office</source>
        <translation>Bezahlt, nachdem der Kunde zur Kasse geschickt wurde</translation>
    </message>
    <message>
        <source>Printer problem: %1</source>
        <translation>Druckerproblem: %1</translation>
    </message>
    <message>
        <source>Booking %1 was printed.</source>
        <translation>Buchung %1 wurde gedruckt.</translation>
    </message>
    <message>
        <source>The printer has a problem: %1</source>
        <translation>Der Drucker hat ein Problem: %1</translation>
    </message>
    <message>
        <source>Welcome — admit.</source>
        <translation>Willkommen — Einlass.</translation>
    </message>
    <message>
        <source>Already used: this ticket came in before.</source>
        <translation>Schon benutzt: Mit diesem Ticket wurde bereits eingelassen.</translation>
    </message>
    <message>
        <source>Not valid: this ticket was cancelled or replaced.</source>
        <translation>Ungültig: Dieses Ticket wurde storniert oder ersetzt.</translation>
    </message>
    <message>
        <source>Not valid: the code is not one of ours.</source>
        <translation>Ungültig: Der Code stammt nicht von uns.</translation>
    </message>
    <message>
        <source>Cannot check: the kiosk does not know this ticket&apos;s key yet.</source>
        <translation>Prüfung nicht möglich: Der Automat kennt den Schlüssel dieses Tickets noch nicht.</translation>
    </message>
    <message>
        <source>Not a ticket code.</source>
        <translation>Kein Ticketcode.</translation>
    </message>
    <message>
        <source>This ticket is for another show.</source>
        <translation>Dieses Ticket gilt für eine andere Vorstellung.</translation>
    </message>
    <message>
        <source>Too early: this ticket is not valid yet.</source>
        <translation>Zu früh: Dieses Ticket ist noch nicht gültig.</translation>
    </message>
    <message>
        <source>Expired: this show is over.</source>
        <translation>Abgelaufen: Diese Vorstellung ist vorbei.</translation>
    </message>
    <message>
        <source>Not valid.</source>
        <translation>Ungültig.</translation>
    </message>
    <message>
        <source>Payment %1</source>
        <translation>Zahlung %1</translation>
    </message>
    <message>
        <source>Ticket %1</source>
        <translation>Ticket %1</translation>
    </message>
    <message>
        <source>confirmed</source>
        <translation>bestätigt</translation>
    </message>
    <message>
        <source>voided</source>
        <translation>ungültig</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>refund due</source>
        <translation>zu erstatten</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>offen</translation>
    </message>
    <message>
        <source>Row %1, seat %2</source>
        <translation>Reihe %1, Platz %2</translation>
    </message>
    <message>
        <source>Row %1, seats %2</source>
        <translation>Reihe %1, Plätze %2</translation>
    </message>
    <message>
        <source>This ticket is for another venue.</source>
        <translation>Dieses Ticket gilt für einen anderen Veranstaltungsort.</translation>
    </message>
</context>
<context>
    <name>marquee::app::MoviesModel</name>
    <message numerus="yes">
        <source>%n min</source>
        <translation>
            <numerusform>%n Min.</numerusform>
            <numerusform>%n Min.</numerusform>
        </translation>
    </message>
    <message>
        <source>Next: %1</source>
        <translation>Nächste: %1</translation>
    </message>
</context>
<context>
    <name>marquee::app::SeatMapModel</name>
    <message>
        <source>The seat map could not be read.</source>
        <translation>Der Saalplan ist nicht lesbar.</translation>
    </message>
    <message>
        <source>The seat map could not be loaded: the kiosk is offline.</source>
        <translation>Der Saalplan konnte nicht geladen werden: der Automat ist offline.</translation>
    </message>
    <message>
        <source>The seat map could not be loaded.</source>
        <translation>Der Saalplan konnte nicht geladen werden.</translation>
    </message>
    <message>
        <source>Row %1 Seat %2</source>
        <translation>Reihe %1 Platz %2</translation>
    </message>
</context>
<context>
    <name>marquee::app::ShowsModel</name>
    <message>
        <source>from %1</source>
        <translation>ab %1</translation>
    </message>
</context>
<context>
    <name>marquee::app::SimulatedTerminal</name>
    <message>
        <source>No card was presented in time.</source>
        <translation>Es wurde keine Karte vorgelegt.</translation>
    </message>
    <message>
        <source>The card terminal is not configured.</source>
        <translation>Das Kartenterminal ist nicht eingerichtet.</translation>
    </message>
    <message>
        <source>The card terminal cannot reach the card provider.</source>
        <translation>Das Kartenterminal erreicht den Zahlungsdienst nicht.</translation>
    </message>
</context>
<context>
    <name>marquee::app::StaffSession</name>
    <message>
        <source>The server cannot be reached. Check the network and try again.</source>
        <translation>Der Server ist nicht erreichbar. Prüfen Sie das Netzwerk und versuchen Sie es erneut.</translation>
    </message>
    <message>
        <source>That name and password do not match.</source>
        <translation>Name und Passwort passen nicht zusammen.</translation>
    </message>
    <message>
        <source>Enter your name and password.</source>
        <translation>Geben Sie Ihren Namen und Ihr Passwort ein.</translation>
    </message>
    <message>
        <source>Sign-in failed: %1</source>
        <translation>Anmeldung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>A %1 cannot sign in here (this screen is for: %2).</source>
        <translation>Die Rolle „%1“ kann sich hier nicht anmelden (dieser Bildschirm ist für: %2).</translation>
    </message>
    <message>
        <source>Enter your password.</source>
        <translation>Geben Sie Ihr Passwort ein.</translation>
    </message>
    <message>
        <source>Too many wrong attempts: sign in again.</source>
        <translation>Zu viele Fehlversuche: Bitte erneut anmelden.</translation>
    </message>
    <message numerus="yes">
        <source>That password is not right (%n attempt(s) left).</source>
        <translation>
            <numerusform>Das Passwort stimmt nicht (noch %n Versuch).</numerusform>
            <numerusform>Das Passwort stimmt nicht (noch %n Versuche).</numerusform>
        </translation>
    </message>
    <message>
        <source>That password is not right.</source>
        <translation>Das Passwort stimmt nicht.</translation>
    </message>
    <message>
        <source>A manager must enter their name and password.</source>
        <translation>Eine Leitungsperson muss Namen und Passwort eingeben.</translation>
    </message>
    <message>
        <source>That manager name and password do not match.</source>
        <translation>Name und Passwort der Leitung passen nicht zusammen.</translation>
    </message>
    <message>
        <source>Only a manager can authorise this.</source>
        <translation>Nur die Leitung kann das freigeben.</translation>
    </message>
    <message>
        <source>Your session has ended. Please sign in again.</source>
        <translation>Ihre Sitzung ist beendet. Bitte melden Sie sich erneut an.</translation>
    </message>
    <message>
        <source>Cashier</source>
        <translation>Kassierer/in</translation>
    </message>
    <message>
        <source>Manager</source>
        <translation>Leitung</translation>
    </message>
    <message>
        <source>Administrator</source>
        <translation>Administrator/in</translation>
    </message>
    <message numerus="yes">
        <source>That password is not right (the server cannot be reached; checked on this till, %n attempt(s) left).</source>
        <translation>
            <numerusform>Das Passwort stimmt nicht (der Server ist nicht erreichbar; an dieser Kasse geprüft, noch %n Versuch).</numerusform>
            <numerusform>Das Passwort stimmt nicht (der Server ist nicht erreichbar; an dieser Kasse geprüft, noch %n Versuche).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>marquee::app::TillController</name>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Film</source>
        <translation>Film</translation>
    </message>
    <message>
        <source>Screen</source>
        <translation>Saal</translation>
    </message>
    <message>
        <source>Seats left</source>
        <translation>Freie Plätze</translation>
    </message>
    <message>
        <source>Seats</source>
        <translation>Plätze</translation>
    </message>
    <message>
        <source>Starts</source>
        <translation>Beginn</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Ab</translation>
    </message>
    <message>
        <source>%1 was just sold elsewhere and left the selection.</source>
        <translation>%1 wurde gerade anderswo verkauft und ist nicht mehr ausgewählt.</translation>
    </message>
    <message>
        <source>%1: the server cannot be reached. Nothing was sold or changed.</source>
        <translation>%1: Der Server ist nicht erreichbar. Nichts wurde verkauft oder geändert.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Loading today&apos;s shows</source>
        <translation>Vorstellungen von heute werden geladen</translation>
    </message>
    <message>
        <source>The server has no cinemas yet.</source>
        <translation>Auf dem Server gibt es noch keine Kinos.</translation>
    </message>
    <message>
        <source>No more shows on sale today.</source>
        <translation>Heute sind keine Vorstellungen mehr im Verkauf.</translation>
    </message>
    <message>
        <source>At most %1 seats in one sale.</source>
        <translation>Höchstens %1 Plätze in einem Verkauf.</translation>
    </message>
    <message>
        <source>There is no seat %1 in this screen.</source>
        <translation>In diesem Saal gibt es keinen Platz %1.</translation>
    </message>
    <message>
        <source>Seat %1 is not free.</source>
        <translation>Platz %1 ist nicht frei.</translation>
    </message>
    <message numerus="yes">
        <source>No %n seats together are free for this show.</source>
        <translation>
            <numerusform>Für diese Vorstellung ist kein Platz mehr frei.</numerusform>
            <numerusform>Für diese Vorstellung sind keine %n Plätze nebeneinander frei.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 just went elsewhere; the nearest free seats are selected instead.</source>
        <translation>%1 ist gerade anderweitig vergeben; stattdessen sind die nächsten freien Plätze gewählt.</translation>
    </message>
    <message>
        <source>Holding the seats</source>
        <translation>Plätze werden reserviert</translation>
    </message>
    <message>
        <source>The hold ran out and the seats were released.</source>
        <translation>Die Reservierung ist abgelaufen und die Plätze wurden freigegeben.</translation>
    </message>
    <message>
        <source>Sale voided; the seats are free again.</source>
        <translation>Verkauf storniert; die Plätze sind wieder frei.</translation>
    </message>
    <message>
        <source>The hold was lost; choose the seats again.</source>
        <translation>Die Reservierung ging verloren; wählen Sie die Plätze erneut.</translation>
    </message>
    <message>
        <source>Creating the order</source>
        <translation>Bestellung wird angelegt</translation>
    </message>
    <message>
        <source>“%1” is not an amount.</source>
        <translation>„%1“ ist kein Betrag.</translation>
    </message>
    <message>
        <source>%1 is less than the total %2.</source>
        <translation>%1 ist weniger als der Gesamtbetrag %2.</translation>
    </message>
    <message>
        <source>No card terminal is connected to this till.</source>
        <translation>An dieser Kasse ist kein Kartenterminal angeschlossen.</translation>
    </message>
    <message>
        <source>No card terminal is connected to this till, so the rest cannot go on a card.</source>
        <translation>An dieser Kasse ist kein Kartenterminal angeschlossen, der Rest kann also nicht mit Karte bezahlt werden.</translation>
    </message>
    <message>
        <source>The cash part must be above 0 and below the total %1.</source>
        <translation>Der Baranteil muss über 0 und unter dem Gesamtbetrag %1 liegen.</translation>
    </message>
    <message>
        <source>%1 handed over is less than the cash part %2.</source>
        <translation>Gegeben %1 ist weniger als der Baranteil %2.</translation>
    </message>
    <message>
        <source>Card declined (%1). The seats are still selected: Enter holds them again.</source>
        <translation>Karte abgelehnt (%1). Die Plätze sind noch gewählt: Enter reserviert sie erneut.</translation>
    </message>
    <message>
        <source>Card payment cancelled.</source>
        <translation>Kartenzahlung abgebrochen.</translation>
    </message>
    <message>
        <source>No card was presented.</source>
        <translation>Es wurde keine Karte vorgelegt.</translation>
    </message>
    <message>
        <source>The card terminal failed: %1</source>
        <translation>Das Kartenterminal hat einen Fehler: %1</translation>
    </message>
    <message>
        <source>The seats were lost after payment; the payment is refunded automatically.</source>
        <translation>Die Plätze gingen nach der Zahlung verloren; die Zahlung wird automatisch erstattet.</translation>
    </message>
    <message>
        <source>Confirming the sale</source>
        <translation>Verkauf wird bestätigt</translation>
    </message>
    <message>
        <source>Cash %1 + card %2</source>
        <translation>Bar %1 + Karte %2</translation>
    </message>
    <message>
        <source>Cash</source>
        <translation>Bar</translation>
    </message>
    <message>
        <source>Card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>The tickets did not print: %1 — the booking is safe; press P to print again.</source>
        <translation>Die Tickets wurden nicht gedruckt: %1 — die Buchung ist sicher; P drückt erneut.</translation>
    </message>
    <message numerus="yes">
        <source>%n ticket(s) reissued and printed again; the first codes no longer admit.</source>
        <translation>
            <numerusform>%n Ticket neu ausgestellt und erneut gedruckt; der erste Code gilt nicht mehr.</numerusform>
            <numerusform>%n Tickets neu ausgestellt und erneut gedruckt; die ersten Codes gelten nicht mehr.</numerusform>
        </translation>
    </message>
    <message>
        <source>Finding the customer&apos;s bookings</source>
        <translation>Buchungen des Kunden werden gesucht</translation>
    </message>
    <message>
        <source>d MMM HH:mm</source>
        <comment>date format</comment>
        <translation>d. MMM HH:mm</translation>
    </message>
    <message>
        <source> · cancelled</source>
        <translation> · storniert</translation>
    </message>
    <message>
        <source>No booking for %1.</source>
        <translation>Keine Buchung für %1.</translation>
    </message>
    <message>
        <source>%1 bookings for %2: choose one.</source>
        <translation>%1 Buchungen für %2: Wählen Sie eine.</translation>
    </message>
    <message>
        <source>No booking %1.</source>
        <translation>Keine Buchung %1.</translation>
    </message>
    <message>
        <source>Finding the booking</source>
        <translation>Buchung wird gesucht</translation>
    </message>
    <message>
        <source>Opening the booking</source>
        <translation>Buchung wird geöffnet</translation>
    </message>
    <message>
        <source>ddd d MMM HH:mm</source>
        <comment>date format</comment>
        <translation>ddd d. MMM HH:mm</translation>
    </message>
    <message>
        <source>Refund booking %1 (%2)</source>
        <translation>Buchung %1 erstatten (%2)</translation>
    </message>
    <message>
        <source>A refund outside the policy needs a reason.</source>
        <translation>Eine Erstattung außerhalb der Regeln braucht einen Grund.</translation>
    </message>
    <message>
        <source>This show is too close to refund at the till: a manager must authorise it, with a reason.</source>
        <translation>Die Vorstellung beginnt zu bald für eine Erstattung an der Kasse: Die Leitung muss sie mit Grund freigeben.</translation>
    </message>
    <message>
        <source>The refund was refused even with the override: %1</source>
        <translation>Die Erstattung wurde auch mit Freigabe abgelehnt: %1</translation>
    </message>
    <message>
        <source>The manager&apos;s authorisation was not accepted.</source>
        <translation>Die Freigabe der Leitung wurde nicht angenommen.</translation>
    </message>
    <message>
        <source>Refunding</source>
        <translation>Wird erstattet</translation>
    </message>
    <message>
        <source>Cancelled. Hand back %1 in cash.</source>
        <translation>Storniert. Geben Sie %1 bar zurück.</translation>
    </message>
    <message>
        <source>Cancelled. %1 goes back to the card (%2).</source>
        <translation>Storniert. %1 geht zurück auf die Karte (%2).</translation>
    </message>
    <message>
        <source>Cancelled. Hand back %1 in cash; %2 goes back to the card.</source>
        <translation>Storniert. Geben Sie %1 bar zurück; %2 geht zurück auf die Karte.</translation>
    </message>
    <message>
        <source>Reprint</source>
        <translation>Nachdruck</translation>
    </message>
    <message numerus="yes">
        <source>%n ticket(s) of %1 reissued and printed; the old codes no longer admit.</source>
        <translation>
            <numerusform>%n Ticket von %1 neu ausgestellt und gedruckt; der alte Code gilt nicht mehr.</numerusform>
            <numerusform>%n Tickets von %1 neu ausgestellt und gedruckt; die alten Codes gelten nicht mehr.</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the reissued tickets</source>
        <translation>Neu ausgestellte Tickets werden gelesen</translation>
    </message>
    <message>
        <source>Reissuing a ticket</source>
        <translation>Ticket wird neu ausgestellt</translation>
    </message>
    <message>
        <source>Checking in</source>
        <translation>Einlass wird geprüft</translation>
    </message>
    <message>
        <source>Admitted</source>
        <translation>Eingelassen</translation>
    </message>
    <message>
        <source>Already used</source>
        <translation>Schon benutzt</translation>
    </message>
    <message>
        <source>Cancelled or replaced ticket</source>
        <translation>Storniertes oder ersetztes Ticket</translation>
    </message>
    <message>
        <source>Not a genuine ticket</source>
        <translation>Kein echtes Ticket</translation>
    </message>
    <message>
        <source>Ticket for another show</source>
        <translation>Ticket für eine andere Vorstellung</translation>
    </message>
    <message>
        <source>Too early: doors open 3 hours before</source>
        <translation>Zu früh: Einlass ab 3 Stunden vorher</translation>
    </message>
    <message>
        <source>The show is over</source>
        <translation>Die Vorstellung ist vorbei</translation>
    </message>
    <message>
        <source>Not a ticket code</source>
        <translation>Kein Ticketcode</translation>
    </message>
    <message>
        <source>Refused</source>
        <translation>Abgewiesen</translation>
    </message>
    <message>
        <source>d MMM yyyy HH:mm</source>
        <comment>date format</comment>
        <translation>d. MMM yyyy HH:mm</translation>
    </message>
    <message>
        <source>not named</source>
        <translation>ohne Namen</translation>
    </message>
    <message>
        <source>Enter the opening float, for example 150.00.</source>
        <translation>Geben Sie den Anfangsbestand ein, zum Beispiel 150,00.</translation>
    </message>
    <message>
        <source>Open the shift with %1 in the drawer</source>
        <translation>Schicht mit %1 in der Kassenlade öffnen</translation>
    </message>
    <message>
        <source>You already had a shift open since %1; it carries on.</source>
        <translation>Sie hatten bereits seit %1 eine Schicht offen; sie läuft weiter.</translation>
    </message>
    <message>
        <source>Opening the shift</source>
        <translation>Schicht wird geöffnet</translation>
    </message>
    <message>
        <source>Shift open. Put the float in the drawer.</source>
        <translation>Schicht offen. Legen Sie das Wechselgeld in die Kassenlade.</translation>
    </message>
    <message>
        <source>Enter the cash counted in the drawer.</source>
        <translation>Geben Sie das in der Kassenlade gezählte Bargeld ein.</translation>
    </message>
    <message>
        <source>Close the shift and print the Z-report</source>
        <translation>Schicht schließen und Z-Bericht drucken</translation>
    </message>
    <message>
        <source>Closing the shift</source>
        <translation>Schicht wird geschlossen</translation>
    </message>
    <message>
        <source>Shift closed. The drawer is exact.</source>
        <translation>Schicht geschlossen. Die Kasse stimmt genau.</translation>
    </message>
    <message>
        <source>Shift closed. The drawer is %1 %2.</source>
        <translation>Schicht geschlossen. In der Kasse sind %1 %2.</translation>
    </message>
    <message>
        <source>over</source>
        <translation>zu viel</translation>
    </message>
    <message>
        <source>short</source>
        <translation>zu wenig</translation>
    </message>
    <message>
        <source>Z-REPORT</source>
        <translation>Z-BERICHT</translation>
    </message>
    <message>
        <source>Till</source>
        <translation>Kasse</translation>
    </message>
    <message>
        <source>Shift</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>Opened by</source>
        <translation>Geöffnet von</translation>
    </message>
    <message>
        <source>Opened</source>
        <translation>Geöffnet</translation>
    </message>
    <message>
        <source>Closed</source>
        <translation>Geschlossen</translation>
    </message>
    <message>
        <source>Sales</source>
        <translation>Verkäufe</translation>
    </message>
    <message>
        <source>Cash sales</source>
        <translation>Barverkäufe</translation>
    </message>
    <message>
        <source>Card sales</source>
        <translation>Kartenverkäufe</translation>
    </message>
    <message>
        <source>Total sales</source>
        <translation>Verkäufe gesamt</translation>
    </message>
    <message>
        <source>Refunds</source>
        <translation>Erstattungen</translation>
    </message>
    <message>
        <source>Cash refunds</source>
        <translation>Bar-Erstattungen</translation>
    </message>
    <message>
        <source>Card refunds</source>
        <translation>Karten-Erstattungen</translation>
    </message>
    <message>
        <source>Voids</source>
        <translation>Stornos</translation>
    </message>
    <message>
        <source>Opening float</source>
        <translation>Anfangsbestand</translation>
    </message>
    <message>
        <source>Cash in</source>
        <translation>Einlagen</translation>
    </message>
    <message>
        <source>Cash out</source>
        <translation>Entnahmen</translation>
    </message>
    <message>
        <source>Expected cash</source>
        <translation>Erwartetes Bargeld</translation>
    </message>
    <message>
        <source>Counted cash</source>
        <translation>Gezähltes Bargeld</translation>
    </message>
    <message>
        <source>Over / short</source>
        <translation>Überschuss / Fehlbetrag</translation>
    </message>
    <message>
        <source>The Z-report did not print: %1</source>
        <translation>Der Z-Bericht wurde nicht gedruckt: %1</translation>
    </message>
    <message>
        <source>the PDF could not be written</source>
        <translation>die PDF-Datei konnte nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Open a shift first: every drawer opening is recorded on the shift.</source>
        <translation>Öffnen Sie zuerst eine Schicht: Jedes Öffnen der Kassenlade wird in der Schicht erfasst.</translation>
    </message>
    <message>
        <source>Open the cash drawer (no sale)</source>
        <translation>Kassenlade öffnen (ohne Verkauf)</translation>
    </message>
    <message>
        <source>no sale</source>
        <translation>ohne Verkauf</translation>
    </message>
    <message>
        <source>Drawer opened.</source>
        <translation>Kassenlade geöffnet.</translation>
    </message>
    <message>
        <source>Enter the amount, for example 50.00.</source>
        <translation>Geben Sie den Betrag ein, zum Beispiel 50,00.</translation>
    </message>
    <message>
        <source>Say why the cash goes %1 the drawer.</source>
        <translation>Geben Sie an, warum das Bargeld %1 wird.</translation>
    </message>
    <message>
        <source>into</source>
        <translation>eingelegt</translation>
    </message>
    <message>
        <source>out of</source>
        <translation>entnommen</translation>
    </message>
    <message>
        <source>Put %1 into the drawer</source>
        <translation>%1 in die Kassenlade einlegen</translation>
    </message>
    <message>
        <source>Take %1 out of the drawer</source>
        <translation>%1 aus der Kassenlade entnehmen</translation>
    </message>
    <message>
        <source>%1 put into the drawer.</source>
        <translation>%1 in die Kassenlade eingelegt.</translation>
    </message>
    <message>
        <source>%1 taken out of the drawer.</source>
        <translation>%1 aus der Kassenlade entnommen.</translation>
    </message>
    <message>
        <source>The drawer</source>
        <translation>Die Kassenlade</translation>
    </message>
    <message>
        <source>No receipt printer is configured, so open the drawer by hand (--escpos).</source>
        <translation>Es ist kein Belegdrucker eingerichtet; öffnen Sie die Kassenlade von Hand (--escpos).</translation>
    </message>
    <message>
        <source>%1 The drawer did not open: %2</source>
        <translation>%1 Die Kassenlade ging nicht auf: %2</translation>
    </message>
    <message>
        <source>Offline the till takes cash only: the card terminal cannot approve a payment without the server.</source>
        <translation>Offline nimmt die Kasse nur Bargeld: Das Kartenterminal kann ohne den Server keine Zahlung genehmigen.</translation>
    </message>
    <message>
        <source>An offline sale prints again from Find booking once the server has booked it.</source>
        <translation>Ein Offline-Verkauf lässt sich über „Buchung suchen“ erneut drucken, sobald der Server ihn gebucht hat.</translation>
    </message>
    <message>
        <source>Offline sale of leased seats: cash only.</source>
        <translation>Offline-Verkauf zugeteilter Plätze: nur Bargeld.</translation>
    </message>
    <message>
        <source>Cash (offline)</source>
        <translation>Bar (offline)</translation>
    </message>
    <message numerus="yes">
        <source>Print the %n ticket(s) for %1 again? The ones printed now stop admitting; the customer gets new ones. P again to print, Esc to keep them.</source>
        <translation>
            <numerusform>Das Ticket für %1 erneut drucken? Das jetzt gedruckte gilt dann nicht mehr; der Kunde bekommt ein neues. P noch einmal zum Drucken, Esc zum Behalten.</numerusform>
            <numerusform>Die %n Tickets für %1 erneut drucken? Die jetzt gedruckten gelten dann nicht mehr; der Kunde bekommt neue. P noch einmal zum Drucken, Esc zum Behalten.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>marquee::app::TillOffline</name>
    <message>
        <source>Seat %1 is not leased to this till: offline, only its leased seats can be sold.</source>
        <translation>Platz %1 ist dieser Kasse nicht zugeteilt: Offline können nur ihre zugeteilten Plätze verkauft werden.</translation>
    </message>
    <message>
        <source>%1 not leased to this till: offline, only its leased seats can be sold.</source>
        <translation>%1 dieser Kasse nicht zugeteilt: Offline können nur ihre zugeteilten Plätze verkauft werden.</translation>
    </message>
    <message>
        <source>These seats belong to two leases of this till: sell them in two sales.</source>
        <translation>Diese Plätze gehören zu zwei Kontingenten dieser Kasse: Bitte in zwei Verkäufen verkaufen.</translation>
    </message>
    <message>
        <source>The price of seat %1 is not known on this till, so it cannot be sold offline.</source>
        <translation>Der Preis von Platz %1 ist an dieser Kasse nicht bekannt, er kann offline nicht verkauft werden.</translation>
    </message>
    <message>
        <source>%1 is less than the total %2.</source>
        <translation>%1 ist weniger als der Gesamtbetrag %2.</translation>
    </message>
    <message>
        <source>This till cannot sign tickets offline (%1), so nothing was sold. Sell when the server is back.</source>
        <translation>Diese Kasse kann offline keine Tickets signieren (%1), daher wurde nichts verkauft. Bitte verkaufen, sobald der Server wieder erreichbar ist.</translation>
    </message>
    <message>
        <source>Seat %1 was already sold offline on this till.</source>
        <translation>Platz %1 wurde an dieser Kasse bereits offline verkauft.</translation>
    </message>
    <message>
        <source>The sale could not be written to this till&apos;s journal (%1), so nothing was sold.</source>
        <translation>Der Verkauf konnte nicht im Journal dieser Kasse gespeichert werden (%1), daher wurde nichts verkauft.</translation>
    </message>
    <message>
        <source>the printer did not print</source>
        <translation>der Drucker hat nicht gedruckt</translation>
    </message>
    <message numerus="yes">
        <source>%n offline sale(s) of yours are not reported to the server yet; the Z-report would miss them. Close the shift once they are.</source>
        <translation>
            <numerusform>%n Offline-Verkauf von Ihnen ist dem Server noch nicht gemeldet; der Z-Bericht würde ihn nicht enthalten. Schließen Sie die Schicht, sobald er gemeldet ist.</numerusform>
            <numerusform>%n Offline-Verkäufe von Ihnen sind dem Server noch nicht gemeldet; der Z-Bericht würde sie nicht enthalten. Schließen Sie die Schicht, sobald sie gemeldet sind.</numerusform>
        </translation>
    </message>
    <message>
        <source>Offline: the server cannot be reached. Only the seats leased to this till can be sold, for cash.</source>
        <translation>Offline: Der Server ist nicht erreichbar. Nur die dieser Kasse zugeteilten Plätze können verkauft werden, nur gegen Bargeld.</translation>
    </message>
    <message numerus="yes">
        <source>%n offline sale(s) will be reported when the server is back.</source>
        <translation>
            <numerusform>%n Offline-Verkauf wird gemeldet, sobald der Server wieder erreichbar ist.</numerusform>
            <numerusform>%n Offline-Verkäufe werden gemeldet, sobald der Server wieder erreichbar ist.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reporting %n offline sale(s) to the server…</source>
        <translation>
            <numerusform>%n Offline-Verkauf wird an den Server gemeldet…</numerusform>
            <numerusform>%n Offline-Verkäufe werden an den Server gemeldet…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n offline sale(s) were refused by the server: a manager must settle them (Shift screen).</source>
        <translation>
            <numerusform>%n Offline-Verkauf wurde vom Server abgelehnt: Die Leitung muss ihn klären (Bildschirm Schicht).</numerusform>
            <numerusform>%n Offline-Verkäufe wurden vom Server abgelehnt: Die Leitung muss sie klären (Bildschirm Schicht).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>marquee::app::TransportStatus</name>
    <message>
        <source>Insecure connection: this device may talk to the server without encryption (--allow-insecure-http). Staff: use https:// with the venue certificate.</source>
        <translation>Unsichere Verbindung: Dieses Gerät darf unverschlüsselt mit dem Server sprechen (--allow-insecure-http). Personal: https:// mit dem Zertifikat des Hauses verwenden.</translation>
    </message>
</context>
</TS>
