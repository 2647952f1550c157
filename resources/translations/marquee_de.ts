<?xml version='1.0' encoding='utf-8'?>
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
        <source>Staff exit (hold three seconds)</source>
        <translation>Beenden für Personal (drei Sekunden halten)</translation>
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
            <numerusform>%n Platz</numerusform><numerusform>%n Plätze</numerusform></translation>
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
            <numerusform>%n Platz · %1</numerusform><numerusform>%n Plätze · %1</numerusform></translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>Weiter</translation>
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
    <name>StaffDialog</name>
    <message>
        <source>Staff exit</source>
        <translation>Beenden (Personal)</translation>
    </message>
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
</context>
<context>
    <name>ThanksScreen</name>
    <message>
        <source>Enjoy the show!</source>
        <translation>Viel Vergnügen!</translation>
    </message>
    <message>
        <source>Please take your tickets and receipt below.</source>
        <translation>Bitte entnehmen Sie unten Ihre Tickets und den Beleg.</translation>
    </message>
    <message>
        <source>Booking reference %1</source>
        <translation>Buchungsnummer %1</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
</context>
<context>
    <name>marquee::app::KioskController</name>
    <message numerus="yes">
        <source>Sorry, %n of your seats was just taken by someone else.</source>
        <translation>
            <numerusform>Leider wurde gerade %n Ihrer Plätze von jemand anderem genommen.</numerusform><numerusform>Leider wurden gerade %n Ihrer Plätze von jemand anderem genommen.</numerusform></translation>
    </message>
    <message>
        <source>This kiosk is offline. Please visit the box office.</source>
        <translation>Dieser Automat ist offline. Bitte gehen Sie zur Kasse.</translation>
    </message>
    <message>
        <source>The programme could not be loaded.</source>
        <translation>Das Programm konnte nicht geladen werden.</translation>
    </message>
    <message>
        <source>recovered after restart</source>
        <translation>nach Neustart wiederhergestellt</translation>
    </message>
    <message numerus="yes">
        <source>%n min</source>
        <translation>
            <numerusform>%n Min.</numerusform><numerusform>%n Min.</numerusform></translation>
    </message>
    <message>
        <source>The show times could not be loaded.</source>
        <translation>Die Vorstellungen konnten nicht geladen werden.</translation>
    </message>
    <message numerus="yes">
        <source>You can book up to %n seats at a time.</source>
        <translation>
            <numerusform>Sie können höchstens %n Platz auf einmal buchen.</numerusform><numerusform>Sie können höchstens %n Plätze auf einmal buchen.</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>There is no wheelchair space with %n seat(s) together left. Please ask at the box office.</source>
        <translation>
            <numerusform>Es gibt keinen Rollstuhlplatz mit %n Platz mehr. Bitte fragen Sie an der Kasse.</numerusform><numerusform>Es gibt keinen Rollstuhlplatz mit %n Plätzen nebeneinander mehr. Bitte fragen Sie an der Kasse.</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>There are no %n seats together left. Try fewer seats or pick them on the map.</source>
        <translation>
            <numerusform>Es gibt keinen freien Einzelplatz mehr. Wählen Sie im Saalplan.</numerusform><numerusform>Es gibt keine %n Plätze nebeneinander mehr. Versuchen Sie weniger Plätze oder wählen Sie im Saalplan.</numerusform></translation>
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
        <source>Your payment was taken but the booking could not be finished. Please visit the box office with your receipt; nothing is lost.</source>
        <translation>Ihre Zahlung ist eingegangen, aber die Buchung konnte nicht abgeschlossen werden. Bitte gehen Sie mit dem Beleg zur Kasse; nichts geht verloren.</translation>
    </message>
    <message>
        <source>Sorry, your seats were released before the payment finished. Your payment will be refunded automatically.</source>
        <translation>Leider wurden Ihre Plätze vor Abschluss der Zahlung freigegeben. Ihre Zahlung wird automatisch erstattet.</translation>
    </message>
    <message>
        <source>The booking could not be finished. Any payment will be refunded automatically.</source>
        <translation>Die Buchung konnte nicht abgeschlossen werden. Eine Zahlung wird automatisch erstattet.</translation>
    </message>
    <message>
        <source>card</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>The printer has a problem: %1 Your booking %2 is safe; staff can reprint it.</source>
        <translation>Der Drucker hat ein Problem: %1 Ihre Buchung %2 ist sicher; das Personal kann sie erneut drucken.</translation>
    </message>
</context>
<context>
    <name>marquee::app::MoviesModel</name>
    <message numerus="yes">
        <source>%n min</source>
        <translation>
            <numerusform>%n Min.</numerusform><numerusform>%n Min.</numerusform></translation>
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
</TS>