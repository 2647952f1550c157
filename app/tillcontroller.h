// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "cardterminal.h"
#include "jsontablemodel.h"
#include "seatmapmodel.h"
#include "staffsession.h"
#include "ticketprinter.h"
#include "tilloffline.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QTranslator>
#include <QPointer>
#include <QTimer>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

namespace marquee::app {

/**
 * @brief The box-office till (`--role cashier`): today's shows, the seat map, hold, cash or card, tickets and
 * receipt, booking lookup, cancel/refund (with a manager override), reprint, door check-in and the shift.
 * QML sees it as the `Till` singleton; screens bind to its properties and call its methods.
 *
 * Screens: `signin`, `sale` (shows + seat map + basket), `tender` (cash or card for the held seats), `done`
 * (change due, printed), `lookup` (find, cancel, reprint, check in), `shift` (open, close, Z-report).
 */
class TillController : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Till)
    QML_SINGLETON
    Q_PROPERTY(StaffSession *session READ session CONSTANT)
    Q_PROPERTY(QString screen READ screen NOTIFY screenChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    /** @brief One sentence for the cashier; messageIsError colours it. */
    Q_PROPERTY(QString message READ message NOTIFY messageChanged)
    Q_PROPERTY(bool messageIsError READ messageIsError NOTIFY messageChanged)
    /** @brief Today's shows: show_id, starts_at, title, screen, seats_left, seats_total, price_from, currency. */
    Q_PROPERTY(JsonTableModel *shows READ shows CONSTANT)
    Q_PROPERTY(int currentShow READ currentShow NOTIFY showChanged)
    Q_PROPERTY(QString showTitle READ showTitle NOTIFY showChanged)
    /** @brief "19:30 · Screen 1 · Marquee Centrum" */
    Q_PROPERTY(QString showText READ showText NOTIFY showChanged)
    Q_PROPERTY(SeatMapModel *seatMap READ seatMap CONSTANT)
    Q_PROPERTY(bool holdActive READ holdActive NOTIFY holdChanged)
    Q_PROPERTY(int holdSecondsLeft READ holdSecondsLeft NOTIFY holdChanged)
    /** @brief [{seat, tier, price}] of the held seats. */
    Q_PROPERTY(QVariantList basket READ basket NOTIFY holdChanged)
    Q_PROPERTY(qint64 totalMinor READ totalMinor NOTIFY holdChanged)
    /** @brief Cash sums the customer may hand over for the total, as typed into the tendered field ("10.00"). */
    Q_PROPERTY(QStringList cashSuggestions READ cashSuggestions NOTIFY holdChanged)
    Q_PROPERTY(QString totalText READ totalText NOTIFY holdChanged)
    /** @brief "", card_waiting (present a card), confirming */
    Q_PROPERTY(QString paymentState READ paymentState NOTIFY paymentChanged)
    Q_PROPERTY(bool cardAvailable READ cardAvailable CONSTANT)
    /** @brief The last sale: booking_ref, seats, total, tendered, change, method, cash_part, card_part, paid_with. */
    Q_PROPERTY(QVariantMap lastSale READ lastSale NOTIFY saleChanged)
    /** @brief The booking found on the lookup screen (with title and show text), or empty. */
    Q_PROPERTY(QVariantMap booking READ booking NOTIFY bookingChanged)
    /** @brief Bookings found by a customer's phone or e-mail, newest first: [{booking_id, label}] (empty otherwise). */
    Q_PROPERTY(QVariantList matches READ matches NOTIFY bookingChanged)
    /** @brief The customer's phone or e-mail for the next order (optional; typed on the tender screen). */
    Q_PROPERTY(QString customerContact READ customerContact WRITE setCustomerContact NOTIFY holdChanged)
    /** @brief The last door scan: result, text, seat, show. */
    Q_PROPERTY(QVariantMap checkin READ checkin NOTIFY checkinChanged)
    /** @brief The printer's last word: empty when fine. */
    Q_PROPERTY(QString printMessage READ printMessage NOTIFY printChanged)
    Q_PROPERTY(QString lastPdfPath READ lastPdfPath NOTIFY printChanged)
    /**
     * @brief Printing a sale again revokes the codes the customer holds, so it asks first: the question, naming the
     * tickets, while it waits for printAgain() once more or cancelReprint(); empty otherwise.
     */
    Q_PROPERTY(QString reprintQuestion READ reprintQuestion NOTIFY printChanged)
    /**
     * @brief The caller's open shift as the server counts it (`GET /api/v1/shifts/current`), as display text:
     * open, opened_at, float, cash_sales, card_sales, total_sales, cash_refunds, card_refunds, cash_in, cash_out,
     * sales_count, refund_count, void_count, split_count, expected_cash (and the *_minor amounts). Empty when
     * no shift is open. The till counts nothing itself: the server's Z-report is the only arithmetic.
     */
    Q_PROPERTY(QVariantMap shift READ shift NOTIFY shiftChanged)
    Q_PROPERTY(bool shiftOpen READ shiftOpen NOTIFY shiftChanged)
    /** @brief The last closed shift's Z-report from the server, in the same keys plus counted, over_short, staff, closed_at, pdf. */
    Q_PROPERTY(QVariantMap zReport READ zReport NOTIFY shiftChanged)
    /** @brief Offline mode: leases, the banner, offline sales and their uploads (TillOffline). */
    Q_PROPERTY(TillOffline *offline READ offline CONSTANT)
public:
    explicit TillController(const AppConfig &config, CardTerminal *terminal = nullptr, QObject *parent = nullptr);
    ~TillController() override;

    static void setInstance(TillController *controller);
    static TillController *create(QQmlEngine *, QJSEngine *);

    StaffSession *session() const { return m_session; }
    QString screen() const { return m_screen; }
    bool busy() const { return m_busy; }
    QString message() const { return m_message; }
    bool messageIsError() const { return m_messageIsError; }
    JsonTableModel *shows() const { return m_shows; }
    int currentShow() const { return m_currentShow; }
    QString showTitle() const { return m_show.value(QStringLiteral("title")).toString(); }
    QString showText() const;
    SeatMapModel *seatMap() const { return m_seatMap; }
    bool holdActive() const { return !m_holdId.isEmpty(); }
    int holdSecondsLeft() const { return m_holdSecondsLeft; }
    QVariantList basket() const;
    qint64 totalMinor() const { return m_totalMinor; }
    QStringList cashSuggestions() const;
    QString totalText() const;
    QString paymentState() const { return m_paymentState; }
    bool cardAvailable() const { return m_terminal != nullptr; }
    QVariantMap lastSale() const { return m_lastSale; }
    QVariantMap booking() const { return m_bookingView; }
    QVariantMap checkin() const { return m_checkin; }
    QVariantList matches() const { return m_matches; }
    QString customerContact() const { return m_customerContact; }
    void setCustomerContact(const QString &contact);
    QString printMessage() const { return m_printMessage; }
    QString reprintQuestion() const { return m_reprintQuestion; }
    QString lastPdfPath() const { return m_lastPdfPath; }
    QVariantMap shift() const;
    bool shiftOpen() const { return !m_shiftReport.isEmpty(); }
    QVariantMap zReport() const { return m_zReport; }
    TillOffline *offline() const { return m_offline; }
    QString holdId() const { return m_holdId; }
    const BookingPrint &lastPrint() const { return m_print; }
    qint64 currentShowId() const { return m_show.value(QStringLiteral("show_id")).toInteger(); }

    /** @brief After sign-in: load today's shows and pick the next one on sale. */
    /** @brief The venue's time now ("19:30", with its zone where this machine's differs), for the header clock. */
    Q_INVOKABLE QString clockText() const;
    Q_INVOKABLE void refreshShows();
    Q_INVOKABLE void selectShow(int row);
    /** @brief Move the show selection up (-1) or down (+1). */
    Q_INVOKABLE void moveShow(int delta);
    Q_INVOKABLE void toggleSeat(const QString &seatId);
    /**
     * @brief A seat typed at the keyboard ("f7", "F 7"): selects it, or unselects it when it was selected. False
     * with a message when the show has no such seat or it is not free.
     */
    Q_INVOKABLE bool pickSeat(const QString &typed);
    /** @brief Select the best @p count adjacent seats of the current show. */
    Q_INVOKABLE bool bestAvailable(int count);
    Q_INVOKABLE void clearSelection();
    /** @brief Hold the selected seats and open the tender screen. */
    Q_INVOKABLE void holdSelection();
    /** @brief One step back: tender → sale (releasing the hold); lookup/shift/done → sale. */
    Q_INVOKABLE void back();
    /** @brief Cash for the held seats: @p tendered as typed ("" = exact). Refuses less than the total. */
    Q_INVOKABLE void payCash(const QString &tendered);
    /**
     * @brief The change due for @p tendered, as text ("" when not enough or not an amount); with @p cashPart
     * (a split) the change on that cash part.
     */
    Q_INVOKABLE QString changeFor(const QString &tendered, const QString &cashPart = QString()) const;
    /** @brief What is left for the card when @p cashPart is paid in cash ("" unless above 0 and below the total). */
    Q_INVOKABLE QString cardPartFor(const QString &cashPart) const;
    /**
     * @brief Split payment: @p cashPart in cash (@p tendered handed over, "" = exact), the rest on the card
     * terminal; one order with `payment_method: split`.
     */
    Q_INVOKABLE void paySplit(const QString &cashPart, const QString &tendered);
    /** @brief Card for the held seats: the terminal asks for the card. */
    Q_INVOKABLE void payCard();
    /** @brief Simulated terminal: present a card token (tok_visa, tok_declined...). */
    Q_INVOKABLE void presentCard(const QString &cardToken);
    Q_INVOKABLE void abortCard();
    /** @brief Done → a fresh sale on the same show. */
    Q_INVOKABLE void newSale();
    /**
     * @brief Done screen: print the sale's tickets again — a reprint, so each ticket is reissued first (audited). The
     * first call only asks (reprintQuestion); the second prints.
     */
    Q_INVOKABLE void printAgain();
    /** @brief The cashier keeps the printed tickets: the question goes, nothing is reissued. */
    Q_INVOKABLE void cancelReprint();

    Q_INVOKABLE void openLookup();
    /**
     * @brief A booking reference, a scanned ticket code (MQ1.… or a till-signed MQ2.…: checked in at the door), or the customer's phone
     * number or e-mail (`GET /api/v1/customers/bookings`: one booking opens, several are listed in matches).
     */
    Q_INVOKABLE void find(const QString &query);
    /** @brief Open one of matches by its id. */
    Q_INVOKABLE void openBooking(const QString &bookingId);
    /** @brief Cancel and refund the found booking within policy (asks for the password first). */
    Q_INVOKABLE void cancelBooking(const QString &reason);
    /** @brief Cancel outside policy: a manager's name and password authorise it; the reason is recorded. */
    Q_INVOKABLE void overrideCancel(const QString &managerName, const QString &managerPassword, const QString &reason);
    /** @brief Print the found booking's tickets again. */
    Q_INVOKABLE void reprintBooking();
    /** @brief Admit a scanned ticket (POST /api/v1/checkin) for the current show, or any show when @p anyShow. */
    Q_INVOKABLE void checkIn(const QString &qr, bool anyShow = true);

    Q_INVOKABLE void openShiftScreen();
    /**
     * @brief Open a shift on the server (`POST /api/v1/shifts`) with @p floatText in the drawer; asks for the
     * password first, then the drawer opens.
     */
    Q_INVOKABLE void openShift(const QString &floatText);
    /** @brief Close the shift on the server with the counted cash (asks for the password first); prints its Z-report. */
    Q_INVOKABLE void closeShift(const QString &countedText);
    Q_INVOKABLE void printZReport();
    /**
     * @brief The lines of the printed Z-report slip for @p zReport (as zReport() shows it), label and value; empty
     * pairs are rules. The slip names the till and the shift (id, who opened it, when it was opened and closed).
     */
    static QList<QPair<QString, QString>> zReportSlipLines(const QVariantMap &zReport);
    /** @brief Open the cash drawer without a sale (asks for the password first; recorded on the shift as no_sale). */
    Q_INVOKABLE void openDrawer();
    /** @brief Put cash into (@p cashIn) or take it out of the drawer, with a reason (asks for the password first). */
    Q_INVOKABLE void moveCash(bool cashIn, const QString &amountText, const QString &reason);
    /** @brief Read the open shift's running Z-report from the server again. */
    Q_INVOKABLE void refreshShift();

Q_SIGNALS:
    void screenChanged();
    void busyChanged();
    void messageChanged();
    void showChanged();
    void holdChanged();
    void paymentChanged();
    void saleChanged();
    void bookingChanged();
    void checkinChanged();
    void printChanged();
    void shiftChanged();
    /** @brief Bytes that went to the ESC/POS printer (tests and the drawer-kick audit). */
    void printerBytesSent(const QByteArray &bytes);

private:
    /**
     * @brief Reissues @p ticketIds of booking @p bookingId one after the other (the server revokes each old code,
     * signs a new one and audits it), reads the booking again and hands it to @p printNew. Every reprint goes
     * through here, so no printed copy of a still-valid code is ever handed out.
     */
    void reissueTickets(const QString &bookingId, QStringList ticketIds, std::function<void(const QJsonObject &booking)> printNew);
    void setScreen(const QString &screen);
    void setBusy(bool busy);
    void setMessage(const QString &message, bool error = false);
    /** @brief Common failure handling: session ended, offline, or the server's sentence. True when handled. */
    void fail(const ApiReply &reply, const QString &what);
    void loadShow(const QJsonObject &show);
    void releaseHold();
    void onHoldTick();
    /** @brief POST /orders for the hold with @p method and its @p cash fields (tendered_minor, cash_minor). */
    void createOrder(const QString &method, const QJsonObject &cash, std::function<void(const QJsonObject &order)> next);
    /** @brief The terminal asks for the card part of @p order. */
    void startTerminal(const QJsonObject &order);
    std::optional<qint64> splitCashPart(const QString &cashPart) const;
    /** @brief The currency of the drawer: the chosen show's, else the venue's (from its shows), else EUR. */
    QString drawerCurrency() const;
    void confirmOrder(const QString &orderId, const QString &intentId, const QString &method, int attempt);
    void completeSale(const QJsonObject &booking, const QString &method);
    bool print(const BookingPrint &booking, bool kickDrawer);
    bool sendEscPos(const QByteArray &bytes, QString *error);
    void onTerminalFinished(const TerminalResult &result);
    void onSessionEnded();
    void applyBooking(const QJsonObject &booking);
    void cancelWith(KioskApi *api, const QString &reason, const QString &overrideToken);
    /** @brief POST a drawer operation (after re-authentication); the drawer opens on the server's yes. */
    void drawerOperation(const QString &kind, qint64 amountMinor, const QString &reason, const QString &done);
    /** @brief POST /shifts with @p floatMinor (after re-authentication); the drawer opens for the float. */
    void startShift(qint64 floatMinor);
    QString printDir() const;
    // --- offline mode (TillOffline): the sale of leased seats while the server cannot be reached ---------
    /** @brief The seats are "held" on this till alone (no server): the tender screen sells them offline. */
    bool offlineHold() const { return m_holdId == QLatin1String("offline"); }
    void holdOffline(const QStringList &seats);
    void payCashOffline(qint64 tenderedMinor);

    AppConfig m_config;
    QTranslator m_translator; ///< the catalogue of config.language, installed while this controller lives
    StaffSession *m_session = nullptr;
    CardTerminal *m_terminal = nullptr;
    JsonTableModel *m_shows = nullptr;
    SeatMapModel *m_seatMap = nullptr;
    QString m_screen = QStringLiteral("signin");
    bool m_busy = false;
    QString m_message;
    bool m_messageIsError = false;
    int m_currentShow = -1;
    QJsonObject m_show;
    QString m_holdId;
    QStringList m_heldSeats;
    QDateTime m_holdExpiresAt;
    int m_holdSecondsLeft = 0;
    qint64 m_totalMinor = 0;
    QString m_currency;
    QTimer m_holdTick;
    QString m_paymentState;
    QString m_orderId;
    QString m_intentId;
    int m_orderAttempt = 0;
    qint64 m_pendingTendered = 0;
    QString m_paymentMethod;   // of the order in progress: cash, card or split
    qint64 m_orderCashMinor = 0; // the order's cash part
    QVariantMap m_lastSale;
    BookingPrint m_print;
    QString m_printMessage;
    QString m_reprintQuestion;
    QString m_lastPdfPath;
    QJsonObject m_booking;      // the looked-up booking as the server sent it
    QJsonObject m_bookingShow;  // its show
    QVariantMap m_bookingView;
    QVariantMap m_checkin;
    QVariantList m_matches;
    QString m_customerContact;
    QJsonObject m_shiftReport; // the server's running Z-report of the open shift; empty when none is open
    QVariantMap m_zReport;     // the last closed shift's report, as shown and printed
    TillOffline *m_offline = nullptr;
};

} // namespace marquee::app
