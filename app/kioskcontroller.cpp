// SPDX-License-Identifier: AGPL-3.0-or-later
#include "kioskcontroller.h"
#include "applogging.h"
#include "core/isotime.h"
#include "core/money.h"
#include "venueclock.h"
#include "sync/offlinecheckin.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QSet>
#include <QJsonDocument>
#include <QJSEngine>
#include <QLocale>
#include <QQmlEngine>
#include <QStandardPaths>
#include <algorithm>

namespace marquee::app {

namespace {
KioskController *s_instance = nullptr;

/** @brief A reconciliation state of a ticket or payment ("confirmed", "refund_due", ...) as staff read it. */
QString reconciliationStateText(const QString &state)
{
    if (state == QLatin1String("confirmed"))
        return KioskController::tr("confirmed");
    if (state == QLatin1String("voided"))
        return KioskController::tr("voided");
    if (state == QLatin1String("unknown"))
        return KioskController::tr("unknown");
    if (state == QLatin1String("refund_due"))
        return KioskController::tr("refund due");
    if (state == QLatin1String("pending"))
        return KioskController::tr("pending");
    return state;
}

QString dataDir()
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + QStringLiteral("/.local/share/marquee");
    return dir;
}
} // namespace

KioskController::KioskController(const AppConfig &config, CardTerminal *terminal, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_client(std::make_unique<sync::ApiClient>(config.server))
    , m_movies(new MoviesModel(this))
    , m_shows(new ShowsModel(this))
    , m_seatMap(new SeatMapModel(this))
{
    m_client->setToken(config.token);
    m_client->setTimeoutMs(config.requestTimeoutMs);
    m_api = new KioskApi(*m_client, this);
    m_terminal = terminal ? terminal : new SimulatedTerminal(config.paysim, this);
    if (!m_terminal->parent())
        m_terminal->setParent(this);
    connect(m_terminal, &CardTerminal::finished, this, &KioskController::onTerminalFinished);

    const QString storePath = config.journalPath.isEmpty() ? dataDir() + QStringLiteral("/kiosk.db") : config.journalPath;
    QDir().mkpath(QFileInfo(storePath).absolutePath());
    if (!m_store.open(storePath))
        qCCritical(lcKiosk) << "cannot open the local store" << storePath << m_store.errorString() << "- card payments are refused";
    m_sync = std::make_unique<sync::SyncEngine>(m_store, *m_client);
    connect(m_sync.get(), &sync::SyncEngine::paymentSettled, this, &KioskController::onPaymentSettled);
    m_api->setCache(m_store.isOpen() ? &m_store : nullptr);
    m_seatMap->setLiveSource(config.server, config.token);
    connect(m_sync.get(), &sync::SyncEngine::onlineChanged, this, &KioskController::onOnlineChanged);
    connect(m_sync.get(), &sync::SyncEngine::pendingCountChanged, this, &KioskController::refreshQueueCounts);
    connect(m_sync.get(), &sync::SyncEngine::parkedCountChanged, this, &KioskController::refreshQueueCounts);
    // The engine counts only what it has looked at; what staff queued offline is counted from the store.
    connect(m_sync.get(), &sync::SyncEngine::actionFinished, this, &KioskController::refreshQueueCounts);
    connect(m_sync.get(), &sync::SyncEngine::drained, this, &KioskController::refreshQueueCounts);
    refreshQueueCounts();
    // After a reconnect the queue is replayed first (the confirms decide what the journals say), then the
    // journals are compared with the server.
    m_reconciler = std::make_unique<sync::Reconciler>(m_store, *m_client);
    connect(m_sync.get(), &sync::SyncEngine::drained, this, [this] {
        if (m_reconcileDue && !m_offline && !m_reconciler->isRunning()) {
            m_reconcileDue = false;
            reconcileNow();
        }
    });
    connect(m_reconciler.get(), &sync::Reconciler::finished, this, [this] {
        loadReconciliation();
        sendHeartbeat(); // the manager desk sees what the reconciliation found without waiting a whole beat
    });
    loadReconciliation();
    m_printerState = m_config.escposTarget.isEmpty() ? QStringLiteral("none") : QStringLiteral("ok");
    m_heartbeat.setInterval(kHeartbeatIntervalMs);
    connect(&m_heartbeat, &QTimer::timeout, this, &KioskController::sendHeartbeat);
    m_heartbeat.start();
    m_confirmPatience.setSingleShot(true);
    m_confirmPatience.setInterval(config.confirmPatienceMs);
    connect(&m_confirmPatience, &QTimer::timeout, this, &KioskController::confirmTakingTooLong);

    m_idle.setSingleShot(true);
    m_idle.setInterval(config.idleTimeoutSeconds * 1000);
    connect(&m_idle, &QTimer::timeout, this, [this] {
        // Never walk away from a card in the terminal or tickets in the printer.
        if (m_screen == QLatin1String("payment") || m_screen == QLatin1String("printing") || m_screen == QLatin1String("attract")
            || m_screen == QLatin1String("offline")) {
            m_idle.start();
            return;
        }
        resetToAttract();
    });
    m_holdTick.setInterval(1000);
    connect(&m_holdTick, &QTimer::timeout, this, &KioskController::onHoldTick);
    m_offlineRetry.setInterval(10000);
    connect(&m_offlineRetry, &QTimer::timeout, this, &KioskController::start);
    connect(m_seatMap, &SeatMapModel::selectionLost, this, [this](const QStringList &seats) {
        if (m_screen == QLatin1String("seats"))
            setMessage(tr("Sorry, %n of your seats was just taken by someone else.", nullptr, int(seats.size())));
    });
    qApp->installEventFilter(this);
    setLanguage(config.language); // also sets the default locale: prices and times follow the language
}

KioskController::~KioskController()
{
    m_sync->stop();
    m_reconciler.reset();
    if (s_instance == this)
        s_instance = nullptr;
}

void KioskController::setInstance(KioskController *controller)
{
    s_instance = controller;
}

KioskController *KioskController::create(QQmlEngine *, QJSEngine *engine)
{
    if (!s_instance) {
        // QML component tests run without the app: a controller that talks to nobody.
        AppConfig config;
        config.server = QUrl(QStringLiteral("http://127.0.0.1:9"));
        config.token = QStringLiteral("none");
        config.journalPath = QDir::tempPath() + QStringLiteral("/marquee-qmltest-journal.sqlite");
        s_instance = new KioskController(config);
        s_instance->m_engine = qobject_cast<QQmlEngine *>(engine);
        return s_instance; // owned by the engine
    }
    QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
    s_instance->m_engine = qobject_cast<QQmlEngine *>(engine);
    return s_instance;
}

bool KioskController::eventFilter(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::MouseButtonPress:
    case QEvent::TouchBegin:
    case QEvent::KeyPress:
    case QEvent::Wheel:
        userActivity();
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

void KioskController::userActivity()
{
    m_idle.start();
}

void KioskController::setScreen(const QString &screen)
{
    if (m_screen != screen) {
        qCInfo(lcKiosk) << "screen" << m_screen << "->" << screen;
        m_screen = screen;
        Q_EMIT screenChanged();
    }
    m_idle.start();
}

void KioskController::setBusy(bool busy)
{
    if (m_busy != busy) {
        m_busy = busy;
        Q_EMIT busyChanged();
    }
}

void KioskController::setMessage(const QString &message)
{
    if (m_message != message) {
        m_message = message;
        Q_EMIT messageChanged();
    }
}

bool KioskController::handleOffline(const ApiReply &reply)
{
    if (reply.kind != ApiErrorKind::Offline && reply.kind != ApiErrorKind::Server && reply.kind != ApiErrorKind::Unauthorized)
        return false;
    goOffline();
    return true;
}

void KioskController::goOffline()
{
    // Nothing is sold offline: drop the selection and the hold (it lapses on the server). With a programme to
    // show (fresh or from the cache) people may still browse it; without one there is only the offline screen.
    setBusy(false);
    setOffline(true);
    m_holdTick.stop();
    if (!m_holdId.isEmpty()) {
        m_holdId.clear();
        m_heldSeats.clear();
        m_seatMap->setOwnHold(false);
        Q_EMIT holdChanged();
    }
    m_seatMap->clearSelection();
    m_offlineRetry.start();
    if (m_movies->count() == 0) {
        m_seatMap->clear();
        setMessage(tr("This kiosk is offline. Please visit the box office."));
        setScreen(QStringLiteral("offline"));
        return;
    }
    setMessage(tr("This kiosk is offline: you can look at the programme, but tickets are sold at the box office until we are back."));
    if (m_screen != QLatin1String("attract") && m_screen != QLatin1String("shows") && m_screen != QLatin1String("seats")
        && m_screen != QLatin1String("staff"))
        setScreen(QStringLiteral("attract"));
}

void KioskController::setOffline(bool offline)
{
    m_api->setOffline(offline);
    if (m_offline == offline)
        return;
    m_offline = offline;
    if (offline)
        m_reconcileDue = true; // whatever happened meanwhile is compared with the server once we are back
    Q_EMIT syncChanged();
}

void KioskController::onOnlineChanged(bool online)
{
    if (!online) {
        // A customer at the terminal or the printer is not interrupted: the payment path has its own answers
        // for a lost link (the confirm is queued). Everyone else stops buying now.
        static const QStringList busyWithCustomer{QStringLiteral("payment"), QStringLiteral("printing"), QStringLiteral("thanks"),
                                                  QStringLiteral("delayed"), QStringLiteral("declined")};
        if (busyWithCustomer.contains(m_screen)) {
            setOffline(true);
            m_offlineRetry.start();
        } else if (!m_offline) {
            goOffline();
        }
        return;
    }
    // The first time online after a start counts as a reconnect too: the app may have been down during an outage.
    m_reconcileDue = m_reconcileDue || m_reconciliation.isEmpty() || m_offline;
    setOffline(false);
    m_offlineRetry.stop();
    sendHeartbeat();
    if (m_fromCache || m_screen == QLatin1String("offline"))
        start(); // fresh programme; the offline screen gives way to the attract screen
    else if (m_message.contains(tr("offline")))
        setMessage({});
}

void KioskController::start()
{
    setBusy(true);
    m_api->setOffline(false); // a deliberate attempt asks the server, not the cache
    m_movies->setLoading(true);
    if (!m_recovered && m_store.isOpen()) {
        // Approved payments whose confirm is still queued are replayed by the engine; payments interrupted while
        // the terminal had the card are asked about (the server knows from the provider).
        m_recovered = true;
        const int interrupted = m_sync->recoverInterruptedPayments();
        if (interrupted > 0)
            qCWarning(lcKiosk) << interrupted << "payment(s) interrupted by a restart were queued for the server to settle";
        m_sync->start();
    }
    m_api->getCached(QStringLiteral("/api/v1/cities"), this, [this](const ApiReply &reply) {
        if (handleOffline(reply) || !reply.ok()) {
            m_movies->setLoading(false);
            if (!reply.ok() && m_screen != QLatin1String("offline"))
                goOffline();
            return;
        }
        const QJsonArray cities = reply.array();
        QJsonObject city = cities.isEmpty() ? QJsonObject() : cities.first().toObject();
        for (const QJsonValue &value : cities)
            if (value.toObject().value(QStringLiteral("name")).toString() == m_config.cityName)
                city = value.toObject();
        m_cityId = city.value(QStringLiteral("city_id")).toInteger();
        m_cityName = city.value(QStringLiteral("name")).toString();
        setAppVenueZone(city.value(QStringLiteral("time_zone")).toString());
        Q_EMIT catalogChanged();
        m_api->getCached(QStringLiteral("/api/v1/cities/%1/movies").arg(m_cityId), this, [this](const ApiReply &reply) {
            m_movies->setLoading(false);
            setBusy(false);
            if (handleOffline(reply))
                return;
            m_movies->setItems(reply.array());
            m_movies->setErrorString(reply.ok() ? QString() : tr("The programme could not be loaded."));
            m_fromCache = reply.fromCache;
            Q_EMIT syncChanged();
            if (reply.fromCache) {
                goOffline(); // browse the last copy; keep trying
                return;
            }
            m_offlineRetry.stop();
            setOffline(false);
            // Someone browsing (from the cache while offline) stays where they are.
            if (m_screen != QLatin1String("shows") && m_screen != QLatin1String("seats") && m_screen != QLatin1String("staff")) {
                setMessage({});
                setScreen(QStringLiteral("attract"));
            } else if (m_message.contains(tr("offline"))) {
                setMessage({});
            }
        });
    });
}

QString KioskController::movieMeta() const
{
    QStringList parts;
    if (m_movie.contains(QStringLiteral("runtime_min")))
        parts << tr("%n min", nullptr, m_movie.value(QStringLiteral("runtime_min")).toInt());
    if (!m_movie.value(QStringLiteral("rating")).toString().isEmpty())
        parts << m_movie.value(QStringLiteral("rating")).toString();
    const QStringList genres = m_movie.value(QStringLiteral("genres")).toVariant().toStringList();
    if (!genres.isEmpty())
        parts << genres.join(QStringLiteral(", "));
    return parts.join(QStringLiteral(" · "));
}

int KioskController::movieArtSeed() const
{
    return int(qHash(movieTitle()) % 100000);
}

QString KioskController::showText() const
{
    if (m_show.isEmpty())
        return {};
    const QDateTime startsAt = fromIso(m_show.value(QStringLiteral("starts_at")).toString());
    return QStringLiteral("%1 · %2 · %3")
        .arg(venueDayAndTime(startsAt, showZone(m_show)),
             m_show.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")).toString(),
             m_show.value(QStringLiteral("venue")).toObject().value(QStringLiteral("name")).toString());
}

void KioskController::openMovie(qint64 movieId)
{
    const int row = m_movies->find(QStringLiteral("movie_id"), movieId);
    if (row < 0)
        return;
    m_movie = m_movies->at(row);
    Q_EMIT movieChanged();
    m_shows->setItems({});
    m_shows->setLoading(true);
    setMessage({});
    setScreen(QStringLiteral("shows"));
    m_api->getCached(QStringLiteral("/api/v1/movies/%1/shows?city=%2").arg(movieId).arg(m_cityId), this, [this](const ApiReply &reply) {
        m_shows->setLoading(false);
        if (handleOffline(reply))
            return;
        if (reply.fromCache && !m_offline)
            goOffline();
        // Only shows still to come and on sale.
        QJsonArray upcoming;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (const QJsonValue &value : reply.array()) {
            const QJsonObject show = value.toObject();
            const QDateTime startsAt = QDateTime::fromString(show.value(QStringLiteral("starts_at")).toString(), Qt::ISODate);
            const QDateTime closes = QDateTime::fromString(show.value(QStringLiteral("sales_close_at")).toString(), Qt::ISODate);
            if (startsAt > now && (!closes.isValid() || closes > now))
                upcoming.append(show);
        }
        m_shows->setItems(upcoming);
        m_shows->setErrorString(reply.ok() ? QString() : tr("The show times could not be loaded."));
    });
}

void KioskController::openShow(qint64 showId)
{
    const int row = m_shows->find(QStringLiteral("show_id"), showId);
    if (row < 0)
        return;
    m_show = m_shows->at(row);
    Q_EMIT showChanged();
    setMessage({});
    m_seatMap->load(m_api, showId, m_config.seatMapPollMs);
    setScreen(QStringLiteral("seats"));
}

void KioskController::toggleSeat(const QString &seatId)
{
    m_seatMap->clearHighlight();
    if (!m_seatMap->toggle(seatId) && m_seatMap->selectedCount() >= m_seatMap->maxSelection())
        setMessage(tr("You can book up to %n seats at a time.", nullptr, m_seatMap->maxSelection()));
    else
        setMessage({});
}

bool KioskController::bestAvailable(int count, bool wheelchair)
{
    m_seatMap->clearHighlight();
    const bool found = m_seatMap->selectBestAvailable(count, wheelchair);
    setMessage(found ? QString()
                     : wheelchair ? tr("There is no wheelchair space with %n seat(s) together left. Please ask at the box office.", nullptr, count)
                                  : tr("There are no %n seats together left. Try fewer seats or pick them on the map.", nullptr, count));
    return found;
}

void KioskController::holdSelection()
{
    const QStringList seats = m_seatMap->selectedSeats();
    if (seats.isEmpty() || m_busy)
        return;
    if (m_offline) {
        // Fail closed: a seat map from the cache says nothing about what is free now.
        setMessage(tr("This kiosk is offline: tickets are sold at the box office until we are back."));
        return;
    }
    setBusy(true);
    m_holdKey = KioskApi::newIdempotencyKey();
    const qint64 showId = m_seatMap->showId();
    QJsonArray ids;
    for (const QString &seat : seats)
        ids.append(seat);
    m_api->post(QStringLiteral("/api/v1/shows/%1/hold").arg(showId), QJsonObject{{QStringLiteral("seat_ids"), ids}}, this,
                [this, seats](const ApiReply &reply) {
                    setBusy(false);
                    if (handleOffline(reply))
                        return;
                    if (reply.kind == ApiErrorKind::Conflict) {
                        QStringList taken;
                        for (const QJsonValue &v : reply.object().value(QStringLiteral("held_seats")).toArray())
                            taken.append(v.toString());
                        if (taken.isEmpty())
                            taken = seats;
                        m_seatMap->markTaken(taken, int(seats.size()));
                        m_seatMap->refresh();
                        setMessage(m_seatMap->selectedCount() > 0
                                       ? tr("Sorry, someone just took %1. We have picked the nearest free seats for you.").arg(taken.join(QStringLiteral(", ")))
                                       : tr("Sorry, someone just took %1. Please choose other seats.").arg(taken.join(QStringLiteral(", "))));
                        return;
                    }
                    if (!reply.ok()) {
                        setMessage(tr("These seats cannot be booked here (%1). Please choose others.").arg(reply.message));
                        return;
                    }
                    const QJsonObject hold = reply.object();
                    m_holdId = hold.value(QStringLiteral("hold_id")).toVariant().toString();
                    m_heldSeats = seats;
                    m_holdExpiresAt = QDateTime::fromString(hold.value(QStringLiteral("expires_at")).toString(), Qt::ISODate);
                    m_seatMap->setOwnHold(true);
                    m_orderId.clear();
                    m_paymentIntentId.clear();
                    m_orderAttempt = 0;
                    m_intentSpent = false;
                    onHoldTick();
                    m_holdTick.start();
                    Q_EMIT holdChanged();
                    setMessage({});
                    setScreen(QStringLiteral("summary"));
                },
                m_holdKey);
}

void KioskController::onHoldTick()
{
    if (m_holdId.isEmpty()) {
        m_holdTick.stop();
        return;
    }
    m_holdSecondsLeft = int(std::max<qint64>(0, QDateTime::currentDateTimeUtc().secsTo(m_holdExpiresAt)));
    Q_EMIT holdChanged();
    // While the terminal has the card, the server decides (a late payment is refunded); never cut it off here.
    if (m_holdSecondsLeft == 0 && m_screen != QLatin1String("payment") && m_screen != QLatin1String("printing")) {
        releaseHold();
        m_seatMap->refresh();
        setMessage(tr("Time ran out and your seats were released. You can choose them again."));
        setScreen(QStringLiteral("seats"));
    }
}

void KioskController::releaseHold()
{
    m_holdTick.stop();
    m_seatMap->setOwnHold(false);
    if (m_holdId.isEmpty()) {
        m_heldSeats.clear(); // seats a declined order released: nothing left to give back
        return;
    }
    // Best effort: a hold that is not released lapses on the server by itself.
    m_api->del(QStringLiteral("/api/v1/holds/%1").arg(m_holdId), this, [](const ApiReply &) {});
    m_holdId.clear();
    m_heldSeats.clear();
    m_orderId.clear();
    m_paymentIntentId.clear();
    Q_EMIT holdChanged();
}

QVariantList KioskController::orderLines() const
{
    QVariantList lines;
    for (const QString &id : m_heldSeats) {
        const int i = m_seatMap->indexOf(id);
        if (i < 0)
            continue;
        const MapSeat &seat = m_seatMap->seats()[size_t(i)];
        lines.append(QVariantMap{{QStringLiteral("seat"), tr("Row %1 Seat %2").arg(seat.row).arg(seat.number)},
                                 {QStringLiteral("tier"), seat.tier},
                                 {QStringLiteral("price"), formatMoney(seat.priceMinor, m_seatMap->currency())}});
    }
    return lines;
}

QString KioskController::orderTotal() const
{
    if (m_amountMinor > 0 && !m_orderId.isEmpty())
        return formatMoney(m_amountMinor, m_currency);
    qint64 total = 0;
    for (const QString &id : m_heldSeats) {
        const int i = m_seatMap->indexOf(id);
        if (i >= 0)
            total += m_seatMap->seats()[size_t(i)].priceMinor;
    }
    return formatMoney(total, m_seatMap->currency());
}

void KioskController::back()
{
    setMessage({});
    if (m_screen == QLatin1String("shows")) {
        setScreen(QStringLiteral("attract"));
    } else if (m_screen == QLatin1String("seats")) {
        m_seatMap->clear();
        setScreen(QStringLiteral("shows"));
    } else if (m_screen == QLatin1String("summary") || m_screen == QLatin1String("declined")) {
        releaseHold();
        m_seatMap->refresh();
        setScreen(QStringLiteral("seats"));
    } else if (m_screen == QLatin1String("error") || m_screen == QLatin1String("delayed") || m_screen == QLatin1String("staff")) {
        resetToAttract();
    }
}

void KioskController::pay()
{
    if (m_holdId.isEmpty() || m_busy)
        return;
    if (m_offline) {
        setMessage(tr("This kiosk is offline: tickets are sold at the box office until we are back."));
        return;
    }
    if (!m_store.isOpen()) {
        setMessage(tr("Card payments are not available at this kiosk right now. Please visit the box office."));
        return;
    }
    setBusy(true);
    // One order per hold and attempt: the idempotency key is derived from both, so a network retry returns the
    // same order while a new try after a declined card gets a fresh one (a declined intent is final).
    m_api->post(QStringLiteral("/api/v1/orders"), QJsonObject{{QStringLiteral("hold_id"), m_holdId}}, this,
                [this](const ApiReply &reply) {
                    setBusy(false);
                    // Unreachable: offline. A 5xx here (the card provider is down) only means no card payments now.
                    if (reply.kind == ApiErrorKind::Offline) {
                        goOffline();
                        return;
                    }
                    if (!reply.ok()) {
                        if (reply.kind == ApiErrorKind::NotFound && reply.code == QLatin1String("hold_not_found")) {
                            releaseHold();
                            setMessage(tr("Your seats were released. Please choose them again."));
                            setScreen(QStringLiteral("seats"));
                        } else {
                            setMessage(tr("Card payment is not possible right now. Please visit the box office."));
                        }
                        return;
                    }
                    const QJsonObject order = reply.object();
                    m_orderId = order.value(QStringLiteral("order_id")).toVariant().toString();
                    m_intentSpent = false;
                    m_paymentIntentId = order.value(QStringLiteral("payment_intent_id")).toString();
                    m_amountMinor = order.value(QStringLiteral("amount_minor")).toInteger();
                    m_currency = order.value(QStringLiteral("currency")).toString();
                    m_intentSpent = false;
                    Q_EMIT holdChanged();
                    retryPayment();
                },
                ("order-" + m_holdId + QLatin1Char('-') + QString::number(m_orderAttempt)).toUtf8());
}

void KioskController::retryPayment()
{
    if (m_terminal->busy() || m_busy)
        return;
    if (m_intentSpent || m_orderId.isEmpty()) {
        ++m_orderAttempt;
        m_orderId.clear();
        m_paymentIntentId.clear();
        if (m_holdId.isEmpty() && !m_heldSeats.isEmpty())
            holdAgainThenPay();
        else
            pay();
        return;
    }
    // The journal entry is written before the terminal is asked: a crash from here on is recovered.
    if (!m_sync->journalPaymentAttempt(m_orderId, m_paymentIntentId, m_amountMinor, m_currency)) {
        setMessage(tr("Card payments are not available at this kiosk right now. Please visit the box office."));
        setScreen(QStringLiteral("error"));
        return;
    }
    m_paymentState = QStringLiteral("waiting");
    Q_EMIT paymentChanged();
    setMessage({});
    setScreen(QStringLiteral("payment"));
    m_terminal->startPayment(m_paymentIntentId, m_amountMinor, m_currency);
}

void KioskController::presentCard(const QString &cardToken)
{
    auto *simulated = qobject_cast<SimulatedTerminal *>(m_terminal);
    if (!simulated || !simulated->busy())
        return;
    m_paymentState = QStringLiteral("processing");
    Q_EMIT paymentChanged();
    simulated->presentCard(cardToken);
}

void KioskController::abortPayment()
{
    m_terminal->abort();
}

void KioskController::onTerminalFinished(const TerminalResult &result)
{
    using Outcome = TerminalResult::Outcome;
    auto journalFailure = [this](const QString &note) {
        m_store.setPaymentState(m_paymentIntentId, QStringLiteral("failed"), note);
    };
    switch (result.outcome) {
    case Outcome::Approved:
        m_paymentState = QStringLiteral("confirming");
        Q_EMIT paymentChanged();
        // What the tickets will say is kept first, so that a booking confirmed after a restart still prints right.
        if (!m_store.putCache(kPrintContextKey + m_paymentIntentId, QJsonDocument(printContext()).toJson(QJsonDocument::Compact)))
            qCWarning(lcKiosk) << "could not keep the print details of" << m_paymentIntentId << m_store.errorString();
        // The card was charged: journal it and queue the confirm in one transaction; the sync engine replays it
        // until the server answers, across network loss and restarts.
        if (!m_sync->queueConfirm(m_orderId, m_paymentIntentId, m_amountMinor, m_currency))
            qCCritical(lcKiosk) << "could not journal the approved payment" << m_paymentIntentId << m_store.errorString()
                                << "- it stays journaled as interrupted and is settled on the next start";
        m_confirmPatience.start();
        return;
    case Outcome::Declined:
        journalFailure(QStringLiteral("declined at the terminal: ") + result.reason);
        m_intentSpent = true;
        closeDeclinedOrder();
        setMessage(tr("Your card was declined. You can try again or use another card."));
        break;
    case Outcome::TimedOut:
        journalFailure(QStringLiteral("no card presented: ") + result.reason);
        setMessage(tr("No card was presented. You can try again."));
        break;
    case Outcome::Aborted:
        journalFailure(QStringLiteral("aborted at the terminal"));
        m_paymentState.clear();
        Q_EMIT paymentChanged();
        setMessage({});
        setScreen(QStringLiteral("summary"));
        return;
    case Outcome::Error:
        journalFailure(QStringLiteral("terminal error: ") + result.reason);
        setMessage(tr("The card terminal is not working. You can try again or visit the box office."));
        break;
    }
    m_paymentState.clear();
    Q_EMIT paymentChanged();
    setScreen(QStringLiteral("declined"));
}

void KioskController::closeDeclinedOrder()
{
    // Tell the server now rather than when the provider's webhook arrives: it answers 402, closes the order and
    // releases its seats. Until that answer "Try again" waits (busy), so that the next try knows the hold is gone.
    setBusy(true);
    m_api->post(QStringLiteral("/api/v1/orders/%1/confirm").arg(m_orderId), QJsonObject{{QStringLiteral("payment_intent_id"), m_paymentIntentId}},
                this,
                [this](const ApiReply &reply) {
                    setBusy(false);
                    if (reply.kind == ApiErrorKind::PaymentFailed) {
                        m_holdTick.stop();
                        m_holdId.clear(); // the seats (m_heldSeats) are taken again by the next try
                        Q_EMIT holdChanged();
                    }
                },
                m_paymentIntentId.toUtf8());
}

void KioskController::holdAgainThenPay()
{
    // The declined order released its seats: take the same seats again (usually still free), then a new order.
    setBusy(true);
    m_holdKey = KioskApi::newIdempotencyKey();
    const QStringList seats = m_heldSeats;
    m_api->post(QStringLiteral("/api/v1/shows/%1/hold").arg(m_seatMap->showId()),
                QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}}, this,
                [this](const ApiReply &reply) {
                    setBusy(false);
                    if (handleOffline(reply))
                        return;
                    if (!reply.ok()) {
                        m_heldSeats.clear();
                        m_seatMap->setOwnHold(false);
                        m_seatMap->clearSelection();
                        m_seatMap->refresh();
                        Q_EMIT holdChanged();
                        setMessage(tr("Sorry, your seats were taken by someone else meanwhile. Please choose others."));
                        setScreen(QStringLiteral("seats"));
                        return;
                    }
                    const QJsonObject hold = reply.object();
                    m_holdId = hold.value(QStringLiteral("hold_id")).toVariant().toString();
                    m_holdExpiresAt = QDateTime::fromString(hold.value(QStringLiteral("expires_at")).toString(), Qt::ISODate);
                    onHoldTick();
                    m_holdTick.start();
                    Q_EMIT holdChanged();
                    pay();
                },
                m_holdKey);
}

void KioskController::onPaymentSettled(const QString &paymentIntentId, const QString &state)
{
    const bool customerWaiting = paymentIntentId == m_paymentIntentId && m_paymentState == QLatin1String("confirming");
    const bool customerStillHere = paymentIntentId == m_paymentIntentId && m_screen == QLatin1String("delayed");
    if (!customerWaiting && !customerStillHere) {
        // A confirm that finished after its customer was sent to the box office (or after a restart): tickets are
        // never printed unattended in a lobby; they wait in the journal for staff to print or hand out.
        if (state == QLatin1String("confirmed"))
            holdTicketsForCollection(paymentIntentId);
        return;
    }
    m_confirmPatience.stop();
    if (state == QLatin1String("confirmed")) {
        // The customer is still at the kiosk (waiting, or reading the "delayed" screen): print now.
        const std::optional<sync::PendingAction> confirm = m_store.actionByKey(paymentIntentId);
        showBooking(confirm ? QJsonDocument::fromJson(confirm->resultBody).object() : QJsonObject());
        return;
    }
    m_paymentState.clear();
    Q_EMIT paymentChanged();
    if (customerStillHere)
        return; // the delayed screen already said what happens next; the report shows the outcome
    if (state == QLatin1String("failed")) {
        m_intentSpent = true;
        setMessage(tr("Your card was declined. You can try again or use another card."));
        setScreen(QStringLiteral("declined"));
        return;
    }
    // refund_due: paid, but the seats could not be kept.
    m_holdTick.stop();
    m_holdId.clear();
    Q_EMIT holdChanged();
    setMessage(tr("Sorry, your seats were released before the payment finished. Your payment will be refunded automatically."));
    setScreen(QStringLiteral("error"));
}

void KioskController::confirmTakingTooLong()
{
    if (m_paymentState != QLatin1String("confirming"))
        return;
    // The confirm stays queued and is replayed until the server answers. The customer is not kept at the kiosk
    // any longer: the "delayed" screen gives the order reference for the box office. Should the booking go
    // through while that screen is still up, the tickets print at once; later, they wait in the journal.
    m_paymentState.clear();
    Q_EMIT paymentChanged();
    m_holdTick.stop();
    m_holdId.clear();
    Q_EMIT holdChanged();
    setMessage(tr("Your payment was taken but the booking could not be finished yet. It is saved at this kiosk and completed "
                  "automatically; please visit the box office with your order reference %1.").arg(orderReference()));
    setScreen(QStringLiteral("delayed"));
}

QString KioskController::orderReference() const
{
    // The first block of the order id is enough for the box office to find the order of a card payment.
    return m_orderId.section(QLatin1Char('-'), 0, 0).toUpper();
}

BookingPrint KioskController::bookingPrintOf(const QJsonObject &booking, const QJsonObject &context) const
{
    BookingPrint print;
    print.title = context.value(QStringLiteral("title")).toString();
    print.startsAt = QDateTime::fromString(context.value(QStringLiteral("starts_at")).toString(), Qt::ISODate);
    print.timeZone = context.value(QStringLiteral("time_zone")).toString();
    print.venue = context.value(QStringLiteral("venue")).toString();
    print.screen = context.value(QStringLiteral("screen")).toString();
    print.currency = booking.value(QStringLiteral("currency")).toString(context.value(QStringLiteral("currency")).toString());
    print.bookingRef = booking.value(QStringLiteral("booking_ref")).toString();
    print.bookingId = booking.value(QStringLiteral("booking_id")).toVariant().toString();
    print.showId = booking.value(QStringLiteral("show_id")).toInteger(context.value(QStringLiteral("show_id")).toInteger());
    print.totalMinor = booking.value(QStringLiteral("amount_minor")).toInteger(context.value(QStringLiteral("amount_minor")).toInteger());
    print.paymentIntentId = context.value(QStringLiteral("payment_intent_id")).toString();
    print.paymentMethod = tr("card");
    const QJsonObject seats = context.value(QStringLiteral("seats")).toObject();
    for (const QJsonValue &v : booking.value(QStringLiteral("tickets")).toArray()) {
        const QJsonObject t = v.toObject();
        PrintedTicket ticket;
        ticket.ticketId = t.value(QStringLiteral("ticket_id")).toVariant().toString();
        ticket.seatId = t.value(QStringLiteral("seat_id")).toString();
        ticket.qr = t.value(QStringLiteral("qr")).toString();
        const QJsonObject seat = seats.value(ticket.seatId).toObject();
        ticket.row = seat.value(QStringLiteral("row")).toString(ticket.seatId);
        ticket.number = seat.value(QStringLiteral("number")).toInt();
        ticket.tier = seat.value(QStringLiteral("tier")).toString();
        ticket.priceMinor = seat.value(QStringLiteral("price_minor")).toInteger();
        print.tickets.append(ticket);
    }
    return print;
}

QJsonObject KioskController::printContext() const
{
    QJsonObject seats;
    for (const QString &id : m_heldSeats) {
        const int i = m_seatMap->indexOf(id);
        if (i < 0)
            continue;
        const MapSeat &seat = m_seatMap->seats()[size_t(i)];
        seats.insert(id, QJsonObject{{QStringLiteral("row"), seat.row},
                                     {QStringLiteral("number"), seat.number},
                                     {QStringLiteral("tier"), seat.tier},
                                     {QStringLiteral("price_minor"), seat.priceMinor}});
    }
    return QJsonObject{{QStringLiteral("title"), movieTitle()},
                       {QStringLiteral("starts_at"), m_show.value(QStringLiteral("starts_at")).toString()},
                       {QStringLiteral("time_zone"), QString::fromUtf8(showZone(m_show).id())},
                       {QStringLiteral("venue"), m_show.value(QStringLiteral("venue")).toObject().value(QStringLiteral("name")).toString()},
                       {QStringLiteral("screen"), m_show.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")).toString()},
                       {QStringLiteral("show_id"), m_seatMap->showId()},
                       {QStringLiteral("currency"), m_currency},
                       {QStringLiteral("amount_minor"), m_amountMinor},
                       {QStringLiteral("payment_intent_id"), m_paymentIntentId},
                       {QStringLiteral("seats"), seats}};
}

QJsonObject KioskController::storedPrintContext(const QString &paymentIntentId)
{
    const std::optional<QByteArray> stored = m_store.cached(kPrintContextKey + paymentIntentId);
    return stored ? QJsonDocument::fromJson(*stored).object() : QJsonObject{{QStringLiteral("payment_intent_id"), paymentIntentId}};
}

void KioskController::holdTicketsForCollection(const QString &paymentIntentId)
{
    const std::optional<sync::PendingAction> confirm = m_store.actionByKey(paymentIntentId);
    const QJsonObject booking = confirm ? QJsonDocument::fromJson(confirm->resultBody).object() : QJsonObject();
    const BookingPrint print = bookingPrintOf(booking, storedPrintContext(paymentIntentId));
    if (print.bookingRef.isEmpty() || m_store.lastPrintOf(print.bookingRef))
        return; // nothing to print, or already printed or held
    sync::PrintRecord job;
    job.bookingRef = print.bookingRef;
    job.state = QStringLiteral("failed");
    job.error = QString::fromLatin1(kNotCollected);
    job.printData = toJson(print);
    if (!m_store.recordPrint(job))
        qCCritical(lcKiosk) << "could not journal the uncollected booking" << print.bookingRef << m_store.errorString();
    qCWarning(lcKiosk) << "booking" << print.bookingRef << "was confirmed after its customer left; its tickets wait for collection";
    Q_EMIT reconciliationChanged();
}

QVariantList KioskController::uncollected() const
{
    QVariantList list;
    auto &store = const_cast<sync::LocalStore &>(m_store);
    QSet<QString> seen;
    for (const sync::PrintRecord &job : store.prints(200)) {
        if (seen.contains(job.bookingRef))
            continue; // prints() is newest first: the first job of a booking says where it stands
        seen.insert(job.bookingRef);
        if (job.state != QLatin1String("failed"))
            continue;
        const BookingPrint print = bookingPrintFromJson(job.printData);
        list.append(QVariantMap{{QStringLiteral("ref"), job.bookingRef},
                                {QStringLiteral("title"), print.title},
                                {QStringLiteral("seats"), int(print.tickets.size())},
                                {QStringLiteral("reason"), job.error == QLatin1String(kNotCollected)
                                                               ? tr("Paid after the customer was sent to the box office")
                                                               : tr("Printer problem: %1").arg(job.error)},
                                {QStringLiteral("since"), venueTimeText(job.createdAt, appVenueZone(), QLocale::ShortFormat)}});
    }
    return list;
}

QString KioskController::bookingTime() const
{
    return venueDayAndTime(m_booking.startsAt, printZone(m_booking));
}

QString KioskController::bookingSeats() const
{
    // By row, rows in the booking's order, seats in a row by number: "Row E, seats 8 and 9 · Row F, seat 3".
    QList<std::pair<QString, QList<PrintedTicket>>> rows;
    for (const PrintedTicket &ticket : m_booking.tickets) {
        auto row = std::find_if(rows.begin(), rows.end(), [&](const auto &r) { return r.first == ticket.row; });
        if (row == rows.end())
            row = rows.insert(rows.end(), {ticket.row, {}});
        row->second.append(ticket);
    }
    QStringList parts;
    for (auto &[row, tickets] : rows) {
        std::sort(tickets.begin(), tickets.end(), [](const PrintedTicket &a, const PrintedTicket &b) { return a.number < b.number; });
        QStringList numbers;
        for (const PrintedTicket &ticket : tickets)
            numbers.append(ticket.number > 0 ? QString::number(ticket.number) : ticket.seatId);
        // Two messages, not one plural form: English has no catalogue, and "seat(s)" is not how a cinema writes.
        parts.append((numbers.size() == 1 ? tr("Row %1, seat %2") : tr("Row %1, seats %2")).arg(row, QLocale().createSeparatedList(numbers)));
    }
    return parts.join(QStringLiteral(" · "));
}

void KioskController::showBooking(const QJsonObject &booking)
{
    m_holdTick.stop();
    m_booking = bookingPrintOf(booking, m_heldSeats.isEmpty() ? storedPrintContext(m_paymentIntentId) : printContext());
    m_holdId.clear();
    m_heldSeats.clear();
    m_seatMap->setOwnHold(false);
    Q_EMIT holdChanged();
    Q_EMIT bookingChanged();
    printBooking();
}

bool KioskController::printAndJournal(const BookingPrint &booking, QString *error, QString *pdfPath)
{
    const QString dir = m_config.printDir.isEmpty() ? dataDir() + QStringLiteral("/prints") : m_config.printDir;
    QDir().mkpath(dir);
    const QString pdf = dir + QStringLiteral("/%1-%2.pdf").arg(booking.bookingRef, QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddHHmmsszzz")));
    bool ok = writePdf(booking, pdf, error);
    QString output = pdf;
    if (ok && !m_config.escposTarget.isEmpty()) {
        output = m_config.escposTarget;
        ok = sendToPrinter(escPosJob(booking), m_config.escposTarget, error);
    }
    m_printerState = !ok ? QStringLiteral("error") : m_config.escposTarget.isEmpty() ? QStringLiteral("none") : QStringLiteral("ok");
    // Every print is journaled (a failed one too, for the reprint); printed tickets join the ticket journal
    // (a reprint of a journaled ticket counts as one).
    sync::PrintRecord job;
    job.bookingRef = booking.bookingRef;
    job.state = ok ? QStringLiteral("printed") : QStringLiteral("failed");
    job.error = ok ? QString() : *error;
    job.output = output;
    job.printData = toJson(booking);
    QList<sync::TicketRecord> printed;
    for (const PrintedTicket &ticket : booking.tickets) {
        if (!ok)
            break;
        sync::TicketRecord record;
        record.ticketId = ticket.ticketId;
        record.bookingId = booking.bookingId;
        record.bookingRef = booking.bookingRef;
        record.showId = booking.showId;
        record.seatId = ticket.seatId;
        record.qr = ticket.qr;
        printed.append(record);
    }
    if (!m_store.recordPrint(job, printed))
        qCCritical(lcKiosk) << "could not journal the print of" << booking.bookingRef << m_store.errorString();
    if (pdfPath)
        *pdfPath = pdf;
    return ok;
}

void KioskController::printBooking()
{
    m_printState = QStringLiteral("printing");
    m_printMessage.clear();
    Q_EMIT printChanged();
    setScreen(QStringLiteral("printing"));
    QString error;
    const bool ok = printAndJournal(m_booking, &error, &m_lastPdfPath);
    m_printState = ok ? QStringLiteral("printed") : QStringLiteral("failed");
    m_printMessage = ok ? QString() : tr("The printer has a problem: %1 Your booking %2 is safe; staff can reprint it.").arg(error, m_booking.bookingRef);
    Q_EMIT printChanged();
    Q_EMIT reconciliationChanged(); // the list of bookings waiting for a print
    if (ok) {
        setMessage({});
        setScreen(QStringLiteral("thanks"));
    }
}

void KioskController::reprint()
{
    QString ref = m_booking.bookingRef;
    if (ref.isEmpty()) {
        const QList<sync::PrintRecord> jobs = m_store.prints(1);
        if (jobs.isEmpty())
            return;
        ref = jobs.first().bookingRef;
    }
    const std::optional<sync::PrintRecord> job = m_store.lastPrintOf(ref);
    if (!job)
        return;
    m_booking = bookingPrintFromJson(job->printData);
    Q_EMIT bookingChanged();
    printBooking();
}

void KioskController::cancel()
{
    if (m_terminal->busy())
        m_terminal->abort();
    resetToAttract();
}

void KioskController::finish()
{
    resetToAttract();
}

void KioskController::resetToAttract()
{
    releaseHold();
    m_seatMap->clear();
    m_booking = {};
    m_paymentState.clear();
    m_printState.clear();
    Q_EMIT bookingChanged();
    Q_EMIT paymentChanged();
    Q_EMIT printChanged();
    m_staffUnlocked = false;
    const bool nothingToShow = m_movies->count() == 0;
    setMessage(m_offline && !nothingToShow ? tr("This kiosk is offline: you can look at the programme, but tickets are sold at the box office until we are back.")
                                           : QString());
    setScreen(m_offline && nothingToShow ? QStringLiteral("offline") : QStringLiteral("attract"));
}

void KioskController::setLanguage(const QString &code)
{
    applyLanguage(m_translator, code);
    m_config.language = code;
    if (m_engine)
        m_engine->retranslate();
    // Texts the models format (times, prices) follow the new locale.
    m_movies->setItems(QJsonArray(m_movies->count() ? [this] {
        QJsonArray a;
        for (int i = 0; i < m_movies->count(); ++i)
            a.append(m_movies->at(i));
        return a;
    }() : QJsonArray()));
    Q_EMIT languageChanged();
    Q_EMIT showChanged();
    Q_EMIT holdChanged();
}

bool KioskController::staffExit(const QString &pin)
{
    if (pin != m_config.staffPin)
        return false;
    releaseHold();
    Q_EMIT exitRequested();
    return true;
}

// --- staff and reconciliation ----------------------------------------------------------------------------------

bool KioskController::staffUnlock(const QString &pin)
{
    if (pin != m_config.staffPin)
        return false;
    releaseHold();
    m_staffUnlocked = true;
    m_lookup.clear();
    m_checkin.clear();
    Q_EMIT lookupChanged();
    Q_EMIT checkinChanged();
    Q_EMIT reconciliationChanged();
    setMessage({});
    setScreen(QStringLiteral("staff"));
    return true;
}

void KioskController::leaveKiosk()
{
    if (m_staffUnlocked && m_screen == QLatin1String("staff"))
        Q_EMIT exitRequested();
}

void KioskController::lookupBooking(const QString &bookingRef)
{
    if (m_screen != QLatin1String("staff"))
        return;
    const QString ref = bookingRef.trimmed().toUpper();
    const std::optional<sync::PrintRecord> job = m_store.lastPrintOf(ref);
    const QList<sync::TicketRecord> tickets = m_store.ticketsByBookingRef(ref);
    m_lookup = QVariantMap{{QStringLiteral("ref"), ref}, {QStringLiteral("found"), job.has_value() || !tickets.isEmpty()}};
    if (job) {
        const BookingPrint print = bookingPrintFromJson(job->printData);
        m_lookup.insert(QStringLiteral("title"), print.title);
        m_lookup.insert(QStringLiteral("when"), venueDayAndTime(print.startsAt, printZone(print)));
        m_lookup.insert(QStringLiteral("print_state"), job->state);
        m_lookup.insert(QStringLiteral("printed_at"), venueTimeText(job->createdAt, appVenueZone(), QLocale::ShortFormat));
    }
    QVariantList lines;
    for (const sync::TicketRecord &ticket : tickets)
        lines.append(QVariantMap{{QStringLiteral("seat"), ticket.seatId},
                                 {QStringLiteral("state"), ticket.reconciliation},
                                 {QStringLiteral("state_text"), reconciliationStateText(ticket.reconciliation)},
                                 {QStringLiteral("reprints"), ticket.reprints}});
    m_lookup.insert(QStringLiteral("tickets"), lines);
    Q_EMIT lookupChanged();
}

bool KioskController::reprintBooking(const QString &bookingRef)
{
    if (m_screen != QLatin1String("staff"))
        return false;
    const QString ref = bookingRef.trimmed().toUpper();
    const std::optional<sync::PrintRecord> job = m_store.lastPrintOf(ref);
    if (!job)
        return false;
    QString error;
    const bool ok = printAndJournal(bookingPrintFromJson(job->printData), &error, &m_lastPdfPath);
    m_printMessage = ok ? tr("Booking %1 was printed.").arg(ref) : tr("The printer has a problem: %1").arg(error);
    Q_EMIT printChanged();
    Q_EMIT reconciliationChanged();
    lookupBooking(ref);
    return ok;
}

void KioskController::checkIn(const QString &qr)
{
    if (m_screen != QLatin1String("staff") || qr.trimmed().isEmpty())
        return;
    // Verified here against the cached keys and revocations, online or not; the upload is queued and the
    // server's word (for example already redeemed at another door) is stored on the scan when it answers.
    sync::OfflineCheckin door(m_store, m_sync.get());
    const sync::ScanOutcome outcome = door.scan(qr.trimmed());
    static const QHash<QString, const char *> texts{
        {QStringLiteral("ok"), QT_TR_NOOP("Welcome — admit.")},
        {QStringLiteral("already_redeemed"), QT_TR_NOOP("Already used: this ticket came in before.")},
        {QStringLiteral("revoked"), QT_TR_NOOP("Not valid: this ticket was cancelled or replaced.")},
        {QStringLiteral("invalid_signature"), QT_TR_NOOP("Not valid: the code is not one of ours.")},
        {QStringLiteral("unknown_key"), QT_TR_NOOP("Cannot check: the kiosk does not know this ticket's key yet.")},
        {QStringLiteral("malformed"), QT_TR_NOOP("Not a ticket code.")},
        {QStringLiteral("wrong_venue"), QT_TR_NOOP("This ticket is for another venue.")},
        {QStringLiteral("wrong_show"), QT_TR_NOOP("This ticket is for another show.")},
        {QStringLiteral("not_yet_valid"), QT_TR_NOOP("Too early: this ticket is not valid yet.")},
        {QStringLiteral("expired"), QT_TR_NOOP("Expired: this show is over.")},
    };
    m_checkin = QVariantMap{{QStringLiteral("result"), outcome.result},
                            {QStringLiteral("admit"), outcome.admit()},
                            {QStringLiteral("recorded"), outcome.recorded},
                            {QStringLiteral("seat"), outcome.ticket.seatId},
                            {QStringLiteral("text"), tr(texts.value(outcome.result, QT_TR_NOOP("Not valid.")))}};
    Q_EMIT checkinChanged();
    refreshQueueCounts();
}

void KioskController::refreshQueueCounts()
{
    if (!m_store.isOpen())
        return;
    m_pendingActions = m_store.pendingCount();
    m_parkedActions = m_store.parkedCount();
    Q_EMIT syncChanged();
}

void KioskController::reconcileNow()
{
    if (m_reconciler->isRunning() || !m_store.isOpen())
        return;
    m_reconciler->run();
    Q_EMIT reconciliationChanged();
}

void KioskController::sendHeartbeat()
{
    if (m_offline || m_heartbeatInFlight || !m_store.isOpen())
        return;
    const std::optional<QByteArray> report = m_store.lastReport();
    const QJsonObject summary = report ? sync::ReconciliationReport::fleetSummary(QJsonDocument::fromJson(*report).object()) : QJsonObject();
    m_heartbeatInFlight = true;
    m_client->heartbeat(m_store.pendingCount(), m_printerState, version(), summary, [this](const sync::ApiResult &result) {
        m_heartbeatInFlight = false;
        if (!result.ok())
            qCInfo(lcKiosk) << "heartbeat not taken:" << result.describe();
    });
}

void KioskController::loadReconciliation()
{
    m_reconciliation.clear();
    const std::optional<QByteArray> stored = m_store.isOpen() ? m_store.lastReport() : std::nullopt;
    if (stored) {
        const QJsonObject report = QJsonDocument::fromJson(*stored).object();
        m_reconciliation = report.toVariantMap();
        m_reconciliation.remove(QStringLiteral("tickets"));
        m_reconciliation.remove(QStringLiteral("payments"));
        m_reconciliation.insert(QStringLiteral("finished_text"),
                                wireTimeText(report.value(QStringLiteral("finished_at")).toString(), QLocale::ShortFormat));
        // One line per item that needs a person: anything not confirmed.
        QVariantList lines;
        for (const QJsonValue &v : report.value(QStringLiteral("payments")).toArray()) {
            const QJsonObject line = v.toObject();
            if (line.value(QStringLiteral("state")).toString() == QLatin1String("confirmed"))
                continue;
            lines.append(QVariantMap{{QStringLiteral("what"), tr("Payment %1").arg(formatMoney(line.value(QStringLiteral("amount_minor")).toInteger(),
                                                                                                 line.value(QStringLiteral("currency")).toString()))},
                                     {QStringLiteral("ref"), line.value(QStringLiteral("booking_ref")).toString(line.value(QStringLiteral("order_id")).toString())},
                                     {QStringLiteral("state"), line.value(QStringLiteral("state")).toString()},
                                     {QStringLiteral("state_text"), reconciliationStateText(line.value(QStringLiteral("state")).toString())},
                                     {QStringLiteral("reason"), line.value(QStringLiteral("reason")).toString()}});
        }
        for (const QJsonValue &v : report.value(QStringLiteral("tickets")).toArray()) {
            const QJsonObject line = v.toObject();
            if (line.value(QStringLiteral("state")).toString() == QLatin1String("confirmed"))
                continue;
            lines.append(QVariantMap{{QStringLiteral("what"), tr("Ticket %1").arg(line.value(QStringLiteral("seat_id")).toString())},
                                     {QStringLiteral("ref"), line.value(QStringLiteral("booking_ref")).toString()},
                                     {QStringLiteral("state"), line.value(QStringLiteral("state")).toString()},
                                     {QStringLiteral("state_text"), reconciliationStateText(line.value(QStringLiteral("state")).toString())},
                                     {QStringLiteral("reason"), line.value(QStringLiteral("reason")).toString()}});
        }
        m_reconciliation.insert(QStringLiteral("lines"), lines);
    }
    Q_EMIT reconciliationChanged();
}

} // namespace marquee::app
