// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "cardterminal.h"
#include "catalogmodels.h"
#include "kioskapi.h"
#include "seatmapmodel.h"
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/reconciler.h"
#include "sync/syncengine.h"
#include "ticketprinter.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QTranslator>
#include <QtQml/qqmlregistration.h>
#include <memory>

class QQmlEngine;
class QJSEngine;

namespace marquee::app {

/**
 * @brief The kiosk flow: attract → shows → seats → summary (held, counting down) → payment → printing →
 * thanks, with the failure screens (offline, declined, error). One instance per app; QML sees it as the
 * `Kiosk` singleton. Screens only show its properties and call its methods.
 */
class KioskController : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Kiosk)
    QML_SINGLETON
    /** @brief attract, shows, seats, summary, payment, declined, printing, thanks, offline, error */
    Q_PROPERTY(QString screen READ screen NOTIFY screenChanged)
    /** @brief A request is on its way: screens show a spinner and refuse double taps. */
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    /** @brief A friendly sentence for the current screen (why the seats changed, why a card failed...). */
    Q_PROPERTY(QString message READ message NOTIFY messageChanged)
    Q_PROPERTY(QString role READ role CONSTANT)
    Q_PROPERTY(MoviesModel *movies READ movies CONSTANT)
    Q_PROPERTY(ShowsModel *shows READ shows CONSTANT)
    Q_PROPERTY(SeatMapModel *seatMap READ seatMap CONSTANT)
    Q_PROPERTY(QString cityName READ cityName NOTIFY catalogChanged)
    Q_PROPERTY(QString movieTitle READ movieTitle NOTIFY movieChanged)
    Q_PROPERTY(QString movieSynopsis READ movieSynopsis NOTIFY movieChanged)
    Q_PROPERTY(QString movieMeta READ movieMeta NOTIFY movieChanged)
    Q_PROPERTY(int movieArtSeed READ movieArtSeed NOTIFY movieChanged)
    /** @brief "Today 19:30 · Screen 1 · Marquee Centrum" */
    Q_PROPERTY(QString showText READ showText NOTIFY showChanged)
    Q_PROPERTY(int holdSecondsLeft READ holdSecondsLeft NOTIFY holdChanged)
    /** @brief True in the last minute of the hold. */
    Q_PROPERTY(bool holdWarning READ holdWarning NOTIFY holdChanged)
    Q_PROPERTY(bool holdActive READ holdActive NOTIFY holdChanged)
    /** @brief [{seat, tier, price}] of the held seats. */
    Q_PROPERTY(QVariantList orderLines READ orderLines NOTIFY holdChanged)
    Q_PROPERTY(QString orderTotal READ orderTotal NOTIFY holdChanged)
    /** @brief waiting (present a card), processing, approved, confirming */
    Q_PROPERTY(QString paymentState READ paymentState NOTIFY paymentChanged)
    Q_PROPERTY(bool demoPanel READ demoPanel CONSTANT)
    Q_PROPERTY(QString bookingRef READ bookingRef NOTIFY bookingChanged)
    /** @brief The booked film, for the thanks screen. */
    Q_PROPERTY(QString bookingTitle READ bookingTitle NOTIFY bookingChanged)
    /** @brief When the booked show starts, in the venue's zone: "Today 19:30", "Sat 5 Dec 13:15 IST". */
    Q_PROPERTY(QString bookingTime READ bookingTime NOTIFY bookingChanged)
    /** @brief The screen (auditorium) of the booked show. */
    Q_PROPERTY(QString bookingScreen READ bookingScreen NOTIFY bookingChanged)
    /** @brief The booked seats by row: "Row E, seats 8 and 9 · Row F, seat 3". */
    Q_PROPERTY(QString bookingSeats READ bookingSeats NOTIFY bookingChanged)
    /** @brief How many tickets of the booking came out of the printer (0 until they did). */
    Q_PROPERTY(int ticketsPrinted READ ticketsPrinted NOTIFY printChanged)
    /** @brief printing, printed, failed */
    Q_PROPERTY(QString printState READ printState NOTIFY printChanged)
    Q_PROPERTY(QString printMessage READ printMessage NOTIFY printChanged)
    Q_PROPERTY(QString lastPdfPath READ lastPdfPath NOTIFY printChanged)
    Q_PROPERTY(QString language READ language NOTIFY languageChanged)
    Q_PROPERTY(int idleTimeoutSeconds READ idleTimeoutSeconds CONSTANT)
    /** @brief Kiosk mode: full screen, no window decorations. */
    Q_PROPERTY(bool fullscreen READ fullscreen CONSTANT)
    Q_PROPERTY(QString version READ version CONSTANT)
    /** @brief The server can be reached (false: browsing from the cache only, nothing is sold). */
    Q_PROPERTY(bool online READ online NOTIFY syncChanged)
    /** @brief Actions (confirms, check-ins) queued for the server and not answered yet. */
    Q_PROPERTY(int pendingActions READ pendingActions NOTIFY syncChanged)
    /** @brief Actions the server refused for good, waiting for staff. */
    Q_PROPERTY(int parkedActions READ parkedActions NOTIFY syncChanged)
    /** @brief The catalogue on screen is the kiosk's last copy, not the server's answer. */
    Q_PROPERTY(bool browsingFromCache READ browsingFromCache NOTIFY syncChanged)
    /** @brief A reconciliation with the server is running. */
    Q_PROPERTY(bool reconciling READ reconciling NOTIFY reconciliationChanged)
    /**
     * @brief The last reconciliation report, for staff: {finished_at, complete, summary: {...}, lines:
     * [{what, ref, state, reason}]}; empty before the first run.
     */
    Q_PROPERTY(QVariantMap reconciliation READ reconciliation NOTIFY reconciliationChanged)
    /** @brief Staff lookup in the journal: {ref, found, printed_at, output, tickets: [{seat, state, reprints}]}. */
    Q_PROPERTY(QVariantMap lookup READ lookup NOTIFY lookupChanged)
    /** @brief The last check-in scan: {result, admit, text, seat}. */
    Q_PROPERTY(QVariantMap checkin READ checkin NOTIFY checkinChanged)
    /** @brief Paid bookings whose tickets were not printed (the customer had already been sent to the box office). */
    Q_PROPERTY(QVariantList uncollected READ uncollected NOTIFY reconciliationChanged)
public:
    /**
     * @brief A controller for @p config. Without @p terminal a SimulatedTerminal on config.paysim is made.
     */
    explicit KioskController(const AppConfig &config, CardTerminal *terminal = nullptr, QObject *parent = nullptr);
    ~KioskController() override;

    /** @brief The instance QML gets (set by the app before the QML is loaded). */
    static void setInstance(KioskController *controller);
    static KioskController *create(QQmlEngine *, QJSEngine *);

    QString screen() const { return m_screen; }
    bool busy() const { return m_busy; }
    QString message() const { return m_message; }
    QString role() const { return m_config.role; }
    MoviesModel *movies() const { return m_movies; }
    ShowsModel *shows() const { return m_shows; }
    SeatMapModel *seatMap() const { return m_seatMap; }
    QString cityName() const { return m_cityName; }
    QString movieTitle() const { return m_movie.value(QStringLiteral("title")).toString(); }
    QString movieSynopsis() const { return m_movie.value(QStringLiteral("synopsis")).toString(); }
    QString movieMeta() const;
    int movieArtSeed() const;
    QString showText() const;
    int holdSecondsLeft() const { return m_holdSecondsLeft; }
    bool holdWarning() const { return holdActive() && m_holdSecondsLeft <= 60; }
    bool holdActive() const { return !m_holdId.isEmpty(); }
    QVariantList orderLines() const;
    QString orderTotal() const;
    QString paymentState() const { return m_paymentState; }
    bool demoPanel() const { return m_config.demoPanel; }
    QString bookingRef() const { return m_booking.bookingRef; }
    QString bookingTitle() const { return m_booking.title; }
    QString bookingTime() const;
    QString bookingScreen() const { return m_booking.screen; }
    QString bookingSeats() const;
    int ticketsPrinted() const { return m_printState == QLatin1String("printed") ? int(m_booking.tickets.size()) : 0; }
    QString printState() const { return m_printState; }
    QString printMessage() const { return m_printMessage; }
    QString lastPdfPath() const { return m_lastPdfPath; }
    QString language() const { return m_config.language; }
    int idleTimeoutSeconds() const { return m_config.idleTimeoutSeconds; }
    bool fullscreen() const { return m_config.fullscreen; }
    QString version() const { return QStringLiteral(MARQUEE_VERSION); }
    bool online() const { return !m_offline; }
    int pendingActions() const { return m_pendingActions; }
    int parkedActions() const { return m_parkedActions; }
    bool browsingFromCache() const { return m_fromCache; }
    bool reconciling() const { return m_reconciler->isRunning(); }
    QVariantMap reconciliation() const { return m_reconciliation; }
    QVariantMap lookup() const { return m_lookup; }
    QVariantMap checkin() const { return m_checkin; }
    QVariantList uncollected() const;
    const AppConfig &config() const { return m_config; }
    const BookingPrint &lastBooking() const { return m_booking; }
    /** @brief The kiosk's durable store: payment journal, printed tickets, print jobs, pending actions. */
    sync::LocalStore &store() { return m_store; }
    /** @brief Replays queued actions (the confirm after an approved card) and follows the server's feeds. */
    sync::SyncEngine &syncEngine() { return *m_sync; }
    KioskApi *api() const { return m_api; }
    QString paymentIntentId() const { return m_paymentIntentId; }
    QString holdId() const { return m_holdId; }
    QString orderId() const { return m_orderId; }

    /** @brief Load the catalogue and show the attract screen; recover unfinished payments from the journal. */
    Q_INVOKABLE void start();
    Q_INVOKABLE void openMovie(qint64 movieId);
    Q_INVOKABLE void openShow(qint64 showId);
    Q_INVOKABLE void toggleSeat(const QString &seatId);
    Q_INVOKABLE bool bestAvailable(int count, bool wheelchair = false);
    /** @brief Hold the selected seats and go to the summary. */
    Q_INVOKABLE void holdSelection();
    /** @brief One step back (releasing the hold when leaving the summary). */
    Q_INVOKABLE void back();
    /** @brief Create the order and ask the terminal for the card. */
    Q_INVOKABLE void pay();
    /** @brief Demo panel: present a simulated card (tok_visa, tok_declined, ...). */
    Q_INVOKABLE void presentCard(const QString &cardToken);
    Q_INVOKABLE void abortPayment();
    Q_INVOKABLE void retryPayment();
    /** @brief Give up: release everything and go back to the attract screen. */
    Q_INVOKABLE void cancel();
    Q_INVOKABLE void reprint();
    Q_INVOKABLE void finish();
    Q_INVOKABLE void setLanguage(const QString &code);
    /** @brief Any touch or key: restarts the idle timer. */
    Q_INVOKABLE void userActivity();
    /** @brief Staff exit: true (and the app quits) when @p pin is right. */
    Q_INVOKABLE bool staffExit(const QString &pin);
    /** @brief Go back to the attract screen now, releasing any hold (the idle timeout does this). */
    Q_INVOKABLE void resetToAttract();

    // --- staff (after the PIN): works offline too -----------------------------------------------------------
    /** @brief Open the staff screen when @p pin is right. */
    Q_INVOKABLE bool staffUnlock(const QString &pin);
    /** @brief Staff screen: close the app. */
    Q_INVOKABLE void leaveKiosk();
    /** @brief Find a booking in the ticket journal by its reference (no server needed). */
    Q_INVOKABLE void lookupBooking(const QString &bookingRef);
    /** @brief Print a journaled booking again (a reprint of its tickets). True when it printed. */
    Q_INVOKABLE bool reprintBooking(const QString &bookingRef);
    /** @brief Check a scanned QR at the door: signature, revocation and re-entry checked locally; upload queued. */
    Q_INVOKABLE void checkIn(const QString &qr);
    /** @brief Compare the journals with the server now (after a reconnect this runs by itself). */
    Q_INVOKABLE void reconcileNow();

Q_SIGNALS:
    void screenChanged();
    void busyChanged();
    void messageChanged();
    void catalogChanged();
    void movieChanged();
    void showChanged();
    void holdChanged();
    void paymentChanged();
    void bookingChanged();
    void printChanged();
    void languageChanged();
    void syncChanged();
    void reconciliationChanged();
    void lookupChanged();
    void checkinChanged();
    /** @brief The staff PIN was accepted. */
    void exitRequested();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void setScreen(const QString &screen);
    void setBusy(bool busy);
    void setMessage(const QString &message);
    void goOffline();
    void releaseHold();
    void onHoldTick();
    void onTerminalFinished(const TerminalResult &result);
    void onPaymentSettled(const QString &paymentIntentId, const QString &state);
    void closeDeclinedOrder();
    void holdAgainThenPay();
    void showBooking(const QJsonObject &booking);
    void confirmTakingTooLong();
    void printBooking();
    bool handleOffline(const ApiReply &reply);
    void onOnlineChanged(bool online);
    void setOffline(bool offline);
    void loadReconciliation();
    /**
     * @brief POST /api/v1/devices/heartbeat with the queue length, the printer's state and the latest
     * reconciliation summary, so the manager desk's fleet page shows them (skipped while offline).
     */
    void sendHeartbeat();
    /** @brief Queue counts from the store (also what was queued while offline, which the engine has not looked at). */
    void refreshQueueCounts();
    /** @brief Print @p booking (PDF, then ESC/POS if configured) and journal the job and its tickets. */
    bool printAndJournal(const BookingPrint &booking, QString *error, QString *pdfPath);
    /** @brief The tickets of the server's @p booking, with what the kiosk knew when the card was approved. */
    BookingPrint bookingPrintOf(const QJsonObject &booking, const QJsonObject &context) const;
    /** @brief The show and seats of the current order as a print needs them (kept from approval on). */
    QJsonObject printContext() const;
    QJsonObject storedPrintContext(const QString &paymentIntentId);
    /** @brief A booking confirmed after its customer left: journal its print as waiting for collection. */
    void holdTicketsForCollection(const QString &paymentIntentId);
    QString orderReference() const;

    AppConfig m_config;
    QPointer<QQmlEngine> m_engine;
    // Destroyed in reverse order: the engine before the client and the store it uses.
    sync::LocalStore m_store;
    std::unique_ptr<sync::ApiClient> m_client;
    std::unique_ptr<sync::SyncEngine> m_sync;
    std::unique_ptr<sync::Reconciler> m_reconciler;
    bool m_offline = false;           ///< known to be offline (the sync engine or a request said so)
    bool m_fromCache = false;         ///< the catalogue shown came from the cache
    bool m_reconcileDue = false;      ///< reconnected (or started): reconcile once the queue has drained
    bool m_staffUnlocked = false;
    int m_pendingActions = 0;
    int m_parkedActions = 0;
    QVariantMap m_reconciliation;
    QVariantMap m_lookup;
    QVariantMap m_checkin;
    /** @brief Cache key prefix of a print context (LocalStore cache table), by payment intent. */
    static inline const QString kPrintContextKey = QStringLiteral("print-context/");
    /** @brief The error of a print job that was never tried: the customer had been sent to the box office. */
    /** @brief Heartbeat cadence; the fleet page counts a device offline after two minutes without one. */
    static constexpr int kHeartbeatIntervalMs = 30000;
    static constexpr const char *kNotCollected = "not printed: confirmed after the customer was sent to the box office";
    bool m_recovered = false; ///< interrupted payments are looked at once per start of the app
    KioskApi *m_api = nullptr;
    CardTerminal *m_terminal = nullptr;
    MoviesModel *m_movies = nullptr;
    ShowsModel *m_shows = nullptr;
    SeatMapModel *m_seatMap = nullptr;
    QTranslator m_translator;
    QTimer m_idle;
    QTimer m_holdTick;
    QTimer m_offlineRetry;
    QTimer m_confirmPatience; ///< how long the customer waits for the booking after the card was approved
    QTimer m_heartbeat;
    bool m_heartbeatInFlight = false;
    QString m_printerState; ///< for the heartbeat: "ok", "error" after a failed print, "none" without a ticket printer
    QString m_screen = QStringLiteral("attract");
    bool m_busy = false;
    QString m_message;
    qint64 m_cityId = 0;
    QString m_cityName;
    QJsonObject m_movie;
    QJsonObject m_show;
    QString m_holdId;
    QStringList m_heldSeats;
    QDateTime m_holdExpiresAt;
    int m_holdSecondsLeft = 0;
    QByteArray m_holdKey;
    QString m_orderId;
    QString m_paymentIntentId;
    int m_orderAttempt = 0;      ///< a declined intent cannot be paid again: the next try is a new order
    bool m_intentSpent = false;  ///< the provider gave this intent a final answer
    qint64 m_amountMinor = 0;
    QString m_currency;
    QString m_paymentState;
    BookingPrint m_booking;
    QString m_printState;
    QString m_printMessage;
    QString m_lastPdfPath;
};

} // namespace marquee::app
