// SPDX-License-Identifier: AGPL-3.0-or-later
#include "tillcontroller.h"
#include "applogging.h"
#include "venueclock.h"
#include "staffsingleton.h"
#include "tillsupport.h"
#include "core/customercontact.h"
#include "core/money.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPainter>
#include <QLocale>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QQmlEngine>
#include <QStandardPaths>
#include <QUrlQuery>
#include <QUuid>
#include <cmath>

namespace marquee::app {

namespace {
constexpr int kConfirmRetries = 4;
constexpr int kOfflineHoldSeconds = 600; // the tender screen of an offline sale; nobody else can take leased seats

QString str(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toVariant().toString();
}
} // namespace

TillController::TillController(const AppConfig &config, CardTerminal *terminal, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_session(new StaffSession(config.server, {QStringLiteral("cashier"), QStringLiteral("manager"), QStringLiteral("admin")}, this))
    , m_terminal(terminal)
    , m_shows(new JsonTableModel(this))
    , m_seatMap(new SeatMapModel(this))
{
    applyLanguage(m_translator, config.language); // first: the column titles below are translated
    // The till's enrolled device token (--token) goes with sign-in, so the session, and every audit row of what is
    // done in it (sales, refunds, drawer, check-ins), names this till.
    m_session->setDeviceToken(config.token);
    m_session->setTimeoutMs(config.requestTimeoutMs);
    m_shows->setColumns({{QStringLiteral("starts_at"), tr("Time"), JsonTableModel::Kind::Time, 90},
                         {QStringLiteral("title"), tr("Film"), JsonTableModel::Kind::Text, 260},
                         {QStringLiteral("screen_name"), tr("Screen"), JsonTableModel::Kind::Text, 120},
                         {QStringLiteral("seats_left"), tr("Seats left"), JsonTableModel::Kind::Integer, 100},
                         {QStringLiteral("seats_total"), tr("Seats"), JsonTableModel::Kind::Integer, 80},
                         {QStringLiteral("time_text"), tr("Starts"), JsonTableModel::Kind::Text, 60},
                         {QStringLiteral("price_from"), tr("From"), JsonTableModel::Kind::Money, 90}});
    if (!m_terminal && config.paysim.isValid() && !config.paysim.isEmpty()) {
        m_terminal = new SimulatedTerminal(config.paysim, this);
    }
    if (m_terminal) {
        m_terminal->setParent(this);
        connect(m_terminal, &CardTerminal::finished, this, &TillController::onTerminalFinished);
    }
    m_holdTick.setInterval(1000);
    connect(&m_holdTick, &QTimer::timeout, this, &TillController::onHoldTick);
    connect(m_session, &StaffSession::signedInChanged, this, [this] {
        if (m_session->signedIn() && m_screen == QLatin1String("signin")) {
            setScreen(QStringLiteral("sale"));
            refreshShows();
            refreshShift();
        }
    });
    connect(m_session, &StaffSession::aboutToSignOut, this, [this] {
        if (m_paymentState.isEmpty())
            releaseHold();
    });
    connect(m_session, &StaffSession::endedSession, this, &TillController::onSessionEnded);
    connect(m_session, &StaffSession::apiChanged, this, [this] {
        if (m_session->api() && currentShowId() > 0)
            m_seatMap->load(m_session->api(), currentShowId(), m_config.seatMapPollMs);
    });
    // The basket and total follow the selection until the seats are held.
    connect(m_seatMap, &SeatMapModel::selectionChanged, this, &TillController::holdChanged);
    connect(m_seatMap, &SeatMapModel::selectionLost, this, [this](const QStringList &seats) {
        setMessage(tr("%1 was just sold elsewhere and left the selection.").arg(seats.join(QStringLiteral(", "))), true);
    });

    // Offline mode (TillOffline): leases for the next shows, the banner, offline sales and their uploads.
    m_offline = new TillOffline(config, this);
    m_offline->watchShows(m_shows);
    m_offline->attachSeatMap(m_seatMap);
    m_offline->attachSession(m_session);
    m_offline->setPrinter([this](const BookingPrint &booking, bool kickDrawer) { return print(booking, kickDrawer); });
    connect(m_offline, &TillOffline::offlineChanged, this, [this] {
        if (holdActive())
            return; // the sale on the tender screen finishes (or fails closed) first
        m_seatMap->clearSelection();
        if (!m_offline->offline() && m_session->api() && currentShowId() > 0)
            m_seatMap->load(m_session->api(), currentShowId(), m_config.seatMapPollMs); // every seat's real status again
    });
    m_offline->printUnprinted(); // a sale journaled before the till stopped, and never printed
}

TillController::~TillController()
{
    StaffSingleton<TillController>::forget(this);
}

void TillController::setInstance(TillController *controller)
{
    StaffSingleton<TillController>::set(controller);
}

TillController *TillController::create(QQmlEngine *, QJSEngine *)
{
    return StaffSingleton<TillController>::forQml(QStringLiteral("cashier"));
}

void TillController::setScreen(const QString &screen)
{
    if (m_screen == screen)
        return;
    m_screen = screen;
    Q_EMIT screenChanged();
}

void TillController::setBusy(bool busy)
{
    if (m_busy == busy)
        return;
    m_busy = busy;
    Q_EMIT busyChanged();
}

void TillController::setMessage(const QString &message, bool error)
{
    if (m_message == message && m_messageIsError == error)
        return;
    m_message = message;
    m_messageIsError = error;
    Q_EMIT messageChanged();
}

void TillController::fail(const ApiReply &reply, const QString &what)
{
    setBusy(false);
    if (m_session->handleUnauthorized(reply))
        return;
    if (reply.kind == ApiErrorKind::Offline)
        setMessage(tr("%1: the server cannot be reached. Nothing was sold or changed.").arg(what), true);
    else
        setMessage(tr("%1: %2").arg(what, reply.message.isEmpty() ? reply.code : reply.message), true);
}

QString TillController::clockText() const
{
    return venueTimeText(QDateTime::currentDateTimeUtc(), appVenueZone(), QStringLiteral("HH:mm"));
}

QString TillController::drawerCurrency() const
{
    if (!m_currency.isEmpty())
        return m_currency;
    // Before a show is chosen: what the venue's shows sell in.
    for (int i = 0; i < m_shows->count(); ++i) {
        const QVariantMap show = m_shows->rowAt(i);
        const QString venue = show.value(QStringLiteral("venue")).toMap().value(QStringLiteral("currency")).toString();
        if (!venue.isEmpty())
            return venue;
        if (!show.value(QStringLiteral("currency")).toString().isEmpty())
            return show.value(QStringLiteral("currency")).toString();
    }
    return QStringLiteral("EUR");
}

QString TillController::showText() const
{
    if (m_show.isEmpty())
        return {};
    return QStringLiteral("%1 · %2 · %3")
        .arg(wireTimeText(str(m_show, "starts_at"), QStringLiteral("ddd HH:mm"), showZone(m_show)),
             m_show.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")).toString(),
             m_show.value(QStringLiteral("venue")).toObject().value(QStringLiteral("name")).toString());
}

QString TillController::printDir() const
{
    return m_config.printDir.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/prints")
                                       : m_config.printDir;
}

// ---------------------------------------------------------------- shows

void TillController::refreshShows()
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    m_shows->setLoading(true);
    setBusy(true);
    // cities → movies → shows of each movie → each show's availability (for the seats left). A till serves one city:
    // the configured one, or the first.
    api->get(QStringLiteral("/api/v1/cities"), this, [this, api](const ApiReply &cities) {
        if (!cities.ok()) {
            m_shows->setLoading(false);
            fail(cities, tr("Loading today's shows"));
            return;
        }
        qint64 cityId = 0;
        for (const QJsonValue &city : cities.array())
            if (cityId == 0 || city.toObject().value(QStringLiteral("name")).toString() == m_config.cityName) {
                cityId = city.toObject().value(QStringLiteral("city_id")).toInteger();
                setAppVenueZone(city.toObject().value(QStringLiteral("time_zone")).toString());
            }
        if (cityId == 0) {
            m_shows->setLoading(false);
            setBusy(false);
            setMessage(tr("The server has no cinemas yet."), true);
            return;
        }
        api->get(QStringLiteral("/api/v1/cities/%1/movies").arg(cityId), this, [this, api, cityId](const ApiReply &movies) {
            if (!movies.ok()) {
                m_shows->setLoading(false);
                fail(movies, tr("Loading today's shows"));
                return;
            }
            struct Collect {
                int pending = 0;
                QList<QJsonObject> shows;
            };
            auto collect = std::make_shared<Collect>();
            const QJsonArray list = movies.array();
            collect->pending = int(list.size());
            auto finish = [this, api, collect] {
                // Shows still on sale in the next 24 hours, soonest first: the till's "today".
                const QDateTime now = QDateTime::currentDateTimeUtc();
                QList<QJsonObject> today;
                for (const QJsonObject &show : std::as_const(collect->shows)) {
                    const QDateTime starts = QDateTime::fromString(str(show, "starts_at"), Qt::ISODateWithMs);
                    const QDateTime closes = QDateTime::fromString(str(show, "sales_close_at"), Qt::ISODateWithMs);
                    if ((closes.isValid() ? closes : starts) > now && starts < now.addSecs(24 * 3600))
                        today.append(show);
                }
                std::sort(today.begin(), today.end(), [](const QJsonObject &a, const QJsonObject &b) {
                    return str(a, "starts_at") < str(b, "starts_at");
                });
                auto counted = std::make_shared<QList<QJsonObject>>();
                auto left = std::make_shared<int>(int(today.size()));
                auto publish = [this, counted] {
                    QList<QJsonObject> sorted = *counted;
                    std::sort(sorted.begin(), sorted.end(), [](const QJsonObject &a, const QJsonObject &b) {
                        return str(a, "starts_at") < str(b, "starts_at");
                    });
                    QJsonArray rows;
                    for (const QJsonObject &row : std::as_const(sorted))
                        rows.append(row);
                    const qint64 keep = currentShowId();
                    m_shows->setRows(rows);
                    m_shows->setLoading(false);
                    setBusy(false);
                    int select = -1;
                    for (int i = 0; i < m_shows->count(); ++i)
                        if (m_shows->rowAt(i).value(QStringLiteral("show_id")).toLongLong() == keep)
                            select = i;
                    if (select < 0 && m_shows->count() > 0)
                        select = 0;
                    if (select >= 0 && (keep == 0 || m_currentShow != select))
                        selectShow(select);
                    if (m_shows->count() == 0)
                        setMessage(tr("No more shows on sale today."));
                };
                if (today.isEmpty()) {
                    publish();
                    return;
                }
                for (QJsonObject show : std::as_const(today)) {
                    // The availability (one status letter per seat, 40 kB for a stadium) instead of the full map
                    // (5.5 MB): the till needs only the counts here.
                    api->get(QStringLiteral("/api/v1/shows/%1/availability").arg(str(show, "show_id")), this,
                             [show, counted, left, publish](const ApiReply &map) mutable {
                                 const QString statuses = map.object().value(QStringLiteral("statuses")).toString();
                                 const int available = int(statuses.count(QLatin1Char(seatStatusCode(SeatStatus::Available))));
                                 const int total = int(statuses.size());
                                 qint64 from = 0;
                                 const QJsonObject tiers = show.value(QStringLiteral("price_tiers")).toObject();
                                 for (auto it = tiers.begin(); it != tiers.end(); ++it)
                                     if (from == 0 || it.value().toInteger() < from)
                                         from = it.value().toInteger();
                                 show.insert(QStringLiteral("seats_left"), map.ok() ? available : QJsonValue());
                                 show.insert(QStringLiteral("seats_total"), total);
                                 show.insert(QStringLiteral("price_from"), from);
                                 show.insert(QStringLiteral("screen_name"), show.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")));
                                 show.insert(QStringLiteral("time_text"), wireTimeText(str(show, "starts_at"), QStringLiteral("HH:mm"), showZone(show)));
                                 counted->append(show);
                                 if (--*left == 0)
                                     publish();
                             });
                }
            };
            if (list.isEmpty()) {
                finish();
                return;
            }
            for (const QJsonValue &movie : list) {
                const QString movieId = str(movie.toObject(), "movie_id");
                api->get(QStringLiteral("/api/v1/movies/%1/shows?city=%2").arg(movieId).arg(cityId), this,
                         [collect, finish](const ApiReply &shows) {
                             for (const QJsonValue &show : shows.array())
                                 collect->shows.append(show.toObject());
                             if (--collect->pending == 0)
                                 finish();
                         });
            }
        });
    });
}

void TillController::selectShow(int row)
{
    if (row < 0 || row >= m_shows->count() || holdActive())
        return;
    m_currentShow = row;
    loadShow(QJsonObject::fromVariantMap(m_shows->rowAt(row)));
}

void TillController::moveShow(int delta)
{
    if (m_shows->count() == 0)
        return;
    selectShow(qBound(0, m_currentShow + delta, m_shows->count() - 1));
}

void TillController::loadShow(const QJsonObject &show)
{
    m_show = show;
    m_currency = str(show, "currency");
    m_seatMap->clearSelection();
    m_seatMap->clearHighlight();
    if (KioskApi *api = m_session->api())
        m_seatMap->load(api, show.value(QStringLiteral("show_id")).toInteger(), m_config.seatMapPollMs);
    setMessage({});
    Q_EMIT showChanged();
}

void TillController::toggleSeat(const QString &seatId)
{
    if (holdActive())
        return;
    if (m_seatMap->toggle(seatId))
        return;
    if (const QString refusal = m_offline->seatRefusal(seatId); !refusal.isEmpty())
        setMessage(refusal, true); // offline: not one of this till's leased seats
    else if (m_seatMap->selectedCount() >= m_seatMap->maxSelection())
        setMessage(tr("At most %1 seats in one sale.").arg(m_seatMap->maxSelection()), true);
}

bool TillController::pickSeat(const QString &typed)
{
    if (holdActive() || m_show.isEmpty())
        return false;
    QString seatId = typed.simplified().remove(QLatin1Char(' '));
    if (m_seatMap->indexOf(seatId) < 0)
        seatId = seatId.toUpper(); // row letters are typed without Shift
    const int index = m_seatMap->indexOf(seatId);
    if (index < 0) {
        setMessage(tr("There is no seat %1 in this screen.").arg(seatId.isEmpty() ? typed : seatId), true);
        return false;
    }
    const bool selected = m_seatMap->selectedSeats().contains(seatId);
    if (!selected && m_seatMap->seats()[size_t(index)].status != SeatStatus::Available) {
        const QString refusal = m_offline->seatRefusal(seatId);
        setMessage(refusal.isEmpty() ? tr("Seat %1 is not free.").arg(seatId) : refusal, true);
        return false;
    }
    setMessage({});
    toggleSeat(seatId);
    return m_seatMap->selectedSeats().contains(seatId) != selected;
}

bool TillController::bestAvailable(int count)
{
    if (holdActive() || m_show.isEmpty() || count < 1)
        return false;
    if (!m_seatMap->selectBestAvailable(count)) {
        setMessage(tr("No %n seats together are free for this show.", nullptr, count), true);
        return false;
    }
    setMessage({});
    return true;
}

void TillController::clearSelection()
{
    if (!holdActive())
        m_seatMap->clearSelection();
}

// ---------------------------------------------------------------- hold

void TillController::holdSelection()
{
    KioskApi *api = m_session->api();
    if (!api || m_busy || holdActive() || m_seatMap->selectedCount() == 0)
        return;
    const QStringList seats = m_seatMap->selectedSeats();
    if (m_offline->offline()) {
        holdOffline(seats);
        return;
    }
    setBusy(true);
    api->post(QStringLiteral("/api/v1/shows/%1/hold").arg(currentShowId()), QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}},
              this,
              [this, seats](const ApiReply &reply) {
                  setBusy(false);
                  if (reply.kind == ApiErrorKind::Conflict && reply.code == QLatin1String("seats_unavailable")) {
                      QStringList taken;
                      for (const QJsonValue &seat : reply.object().value(QStringLiteral("held_seats")).toArray())
                          taken.append(seat.toString());
                      m_seatMap->refresh([this, taken](bool) { m_seatMap->markTaken(taken); });
                      setMessage(tr("%1 just went elsewhere; the nearest free seats are selected instead.").arg(taken.join(QStringLiteral(", "))), true);
                      return;
                  }
                  if (!reply.ok()) {
                      fail(reply, tr("Holding the seats"));
                      return;
                  }
                  const QJsonObject hold = reply.object();
                  m_holdId = str(hold, "hold_id");
                  m_heldSeats = seats;
                  m_holdExpiresAt = QDateTime::fromString(str(hold, "expires_at"), Qt::ISODateWithMs);
                  m_totalMinor = m_seatMap->selectedTotalMinor();
                  m_orderAttempt = 0;
                  m_orderId.clear();
                  m_intentId.clear();
                  m_seatMap->setOwnHold(true);
                  onHoldTick();
                  m_holdTick.start();
                  setMessage({});
                  Q_EMIT holdChanged();
                  setScreen(QStringLiteral("tender"));
              },
              KioskApi::newIdempotencyKey());
}

void TillController::onHoldTick()
{
    if (!holdActive()) {
        m_holdTick.stop();
        return;
    }
    m_holdSecondsLeft = int(qMax<qint64>(0, QDateTime::currentDateTimeUtc().secsTo(m_holdExpiresAt)));
    Q_EMIT holdChanged();
    if (m_holdSecondsLeft == 0 && m_paymentState.isEmpty() && !m_busy) {
        releaseHold();
        setScreen(QStringLiteral("sale"));
        setMessage(tr("The hold ran out and the seats were released."), true);
    }
}

void TillController::releaseHold()
{
    if (holdActive() && !offlineHold()) {
        if (KioskApi *api = m_session->api())
            api->del(QStringLiteral("/api/v1/holds/%1").arg(m_holdId), this, [](const ApiReply &) {});
    }
    m_holdId.clear();
    m_heldSeats.clear();
    m_totalMinor = 0;
    m_customerContact.clear();
    m_holdTick.stop();
    m_seatMap->setOwnHold(false);
    Q_EMIT holdChanged();
}

QVariantList TillController::basket() const
{
    QVariantList lines;
    for (const QString &seatId : m_holdId.isEmpty() ? m_seatMap->selectedSeats() : m_heldSeats) {
        const int index = m_seatMap->indexOf(seatId);
        if (index < 0)
            continue;
        const MapSeat &seat = m_seatMap->seats()[size_t(index)];
        lines.append(QVariantMap{{QStringLiteral("seat"), seatId},
                                 {QStringLiteral("tier"), seat.tier},
                                 {QStringLiteral("price"), formatMoney(seat.priceMinor, m_currency)}});
    }
    return lines;
}

QString TillController::totalText() const
{
    return formatMoney(holdActive() ? m_totalMinor : m_seatMap->selectedTotalMinor(), drawerCurrency());
}

void TillController::back()
{
    if (m_screen == QLatin1String("tender")) {
        if (!m_paymentState.isEmpty() || m_busy)
            return; // a card is in the terminal or an order is on its way: finish or abort that first
        releaseHold();
        refreshShift(); // an order that was opened and not paid is a void on the shift
        setMessage(tr("Sale voided; the seats are free again."));
        setScreen(QStringLiteral("sale"));
        return;
    }
    if (m_screen == QLatin1String("done")) {
        newSale();
        return;
    }
    if (m_screen == QLatin1String("sale")) {
        m_seatMap->clearSelection();
        setMessage({});
        return;
    }
    if (m_screen != QLatin1String("signin"))
        setScreen(QStringLiteral("sale"));
}

// ---------------------------------------------------------------- payment

std::optional<qint64> TillController::splitCashPart(const QString &cashPart) const
{
    const std::optional<qint64> amount = parseMoneyInput(cashPart, m_currency);
    if (!amount || *amount <= 0 || *amount >= m_totalMinor)
        return std::nullopt;
    return amount;
}

QString TillController::changeFor(const QString &tendered, const QString &cashPart) const
{
    // The cash due: the whole total, or in a split only its cash part.
    const std::optional<qint64> due = cashPart.trimmed().isEmpty() ? std::optional<qint64>(m_totalMinor) : splitCashPart(cashPart);
    if (!due)
        return {};
    const std::optional<qint64> amount = tendered.trimmed().isEmpty() ? due : parseMoneyInput(tendered, m_currency);
    if (!amount || *amount < *due)
        return {};
    return formatMoney(*amount - *due, m_currency);
}

QString TillController::cardPartFor(const QString &cashPart) const
{
    const std::optional<qint64> cash = splitCashPart(cashPart);
    return cash ? formatMoney(m_totalMinor - *cash, m_currency) : QString();
}

void TillController::createOrder(const QString &method, const QJsonObject &cash, std::function<void(const QJsonObject &order)> next)
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    setBusy(true);
    m_paymentMethod = method;
    QJsonObject body = cash;
    body.insert(QStringLiteral("hold_id"), m_holdId);
    // The customer's contact, if given, goes with the order so the booking can be found by it later.
    const QString contact = m_customerContact.trimmed();
    if (!contact.isEmpty())
        body.insert(contact.contains(QLatin1Char('@')) ? QStringLiteral("customer_email") : QStringLiteral("customer_phone"), contact);
    body.insert(QStringLiteral("payment_method"), method);
    // One order per hold and attempt: a retried request gets the same order, a new try after a declined card a new one.
    api->post(QStringLiteral("/api/v1/orders"), body, this,
              [this, next = std::move(next)](const ApiReply &reply) {
                  if (reply.code == QLatin1String("hold_not_found") || reply.code == QLatin1String("hold_expired")
                      || reply.code == QLatin1String("hold_released")) {
                      setBusy(false);
                      m_holdId.clear();
                      releaseHold();
                      setScreen(QStringLiteral("sale"));
                      setMessage(tr("The hold was lost; choose the seats again."), true);
                      return;
                  }
                  if (!reply.ok()) {
                      fail(reply, tr("Creating the order"));
                      return;
                  }
                  const QJsonObject order = reply.object();
                  m_orderId = str(order, "order_id");
                  m_intentId = str(order, "payment_intent_id");
                  m_totalMinor = order.value(QStringLiteral("amount_minor")).toInteger(m_totalMinor);
                  m_orderCashMinor = order.value(QStringLiteral("cash_minor")).toInteger(m_paymentMethod == QLatin1String("cash") ? m_totalMinor : 0);
                  Q_EMIT holdChanged();
                  next(order);
              },
              ("order-" + m_holdId + QLatin1Char('-') + QString::number(m_orderAttempt)).toUtf8());
}

void TillController::payCash(const QString &tendered)
{
    if (!holdActive() || m_busy || !m_paymentState.isEmpty())
        return;
    const std::optional<qint64> amount = tendered.trimmed().isEmpty() ? std::optional<qint64>(m_totalMinor) : parseMoneyInput(tendered, m_currency);
    if (!amount) {
        setMessage(tr("“%1” is not an amount.").arg(tendered), true);
        return;
    }
    if (*amount < m_totalMinor) {
        setMessage(tr("%1 is less than the total %2.").arg(formatMoney(*amount, m_currency), totalText()), true);
        return;
    }
    if (offlineHold()) {
        payCashOffline(*amount);
        return;
    }
    m_pendingTendered = *amount;
    // The server records what was handed over and the change (the Z-report's change given).
    createOrder(QStringLiteral("cash"), QJsonObject{{QStringLiteral("tendered_minor"), *amount}}, [this](const QJsonObject &) {
        m_paymentState = QStringLiteral("confirming");
        Q_EMIT paymentChanged();
        confirmOrder(m_orderId, m_intentId, QStringLiteral("cash"), 0);
    });
}

void TillController::payCard()
{
    if (!holdActive() || m_busy || !m_paymentState.isEmpty())
        return;
    if (offlineHold()) {
        setMessage(tr("Offline the till takes cash only: the card terminal cannot approve a payment without the server."), true);
        return;
    }
    if (!m_terminal) {
        setMessage(tr("No card terminal is connected to this till."), true);
        return;
    }
    createOrder(QStringLiteral("card"), {}, [this](const QJsonObject &order) { startTerminal(order); });
}

void TillController::startTerminal(const QJsonObject &order)
{
    setBusy(false);
    m_paymentState = QStringLiteral("card_waiting");
    Q_EMIT paymentChanged();
    // A split's intent is for the card part only (card_minor); a card order's for the whole amount.
    const qint64 cardMinor = order.value(QStringLiteral("card_minor")).toInteger(order.value(QStringLiteral("amount_minor")).toInteger());
    m_terminal->startPayment(m_intentId, cardMinor, str(order, "currency"));
}

void TillController::paySplit(const QString &cashPart, const QString &tendered)
{
    if (!holdActive() || m_busy || !m_paymentState.isEmpty())
        return;
    if (offlineHold()) {
        setMessage(tr("Offline the till takes cash only: the card terminal cannot approve a payment without the server."), true);
        return;
    }
    if (!m_terminal) {
        setMessage(tr("No card terminal is connected to this till, so the rest cannot go on a card."), true);
        return;
    }
    const std::optional<qint64> cash = splitCashPart(cashPart);
    if (!cash) {
        setMessage(tr("The cash part must be above 0 and below the total %1.").arg(totalText()), true);
        return;
    }
    const std::optional<qint64> handed = tendered.trimmed().isEmpty() ? cash : parseMoneyInput(tendered, m_currency);
    if (!handed || *handed < *cash) {
        setMessage(tr("%1 handed over is less than the cash part %2.").arg(tendered, formatMoney(*cash, m_currency)), true);
        return;
    }
    m_pendingTendered = *handed;
    createOrder(QStringLiteral("split"), QJsonObject{{QStringLiteral("cash_minor"), *cash}, {QStringLiteral("tendered_minor"), *handed}},
                [this](const QJsonObject &order) { startTerminal(order); });
}

void TillController::presentCard(const QString &cardToken)
{
    if (auto *simulated = qobject_cast<SimulatedTerminal *>(m_terminal))
        simulated->presentCard(cardToken);
}

void TillController::abortCard()
{
    if (m_terminal && m_terminal->busy())
        m_terminal->abort();
}

void TillController::onTerminalFinished(const TerminalResult &result)
{
    using Outcome = TerminalResult::Outcome;
    if (result.outcome == Outcome::Approved) {
        m_paymentState = QStringLiteral("confirming");
        Q_EMIT paymentChanged();
        setBusy(true);
        confirmOrder(m_orderId, m_intentId, m_paymentMethod, 0);
        return;
    }
    m_paymentState.clear();
    Q_EMIT paymentChanged();
    if (result.outcome == Outcome::Declined) {
        // A declined intent is final: the server closes the order (402) and frees the seats, so the seats are
        // held again for the next try.
        if (KioskApi *api = m_session->api())
            api->post(QStringLiteral("/api/v1/orders/%1/confirm").arg(m_orderId), QJsonObject{{QStringLiteral("payment_intent_id"), m_intentId}},
                      this, [](const ApiReply &) {}, ("confirm-" + m_orderId).toUtf8());
        ++m_orderAttempt;
        m_holdId.clear();
        m_heldSeats.clear();
        m_holdTick.stop();
        m_seatMap->setOwnHold(false);
        Q_EMIT holdChanged();
        setScreen(QStringLiteral("sale"));
        setMessage(tr("Card declined (%1). The seats are still selected: Enter holds them again.").arg(result.reason), true);
        return;
    }
    ++m_orderAttempt;
    m_orderId.clear();
    setMessage(result.outcome == Outcome::Aborted ? tr("Card payment cancelled.")
               : result.outcome == Outcome::TimedOut ? tr("No card was presented.")
                                                     : tr("The card terminal failed: %1").arg(result.reason),
               result.outcome != Outcome::Aborted);
}

void TillController::confirmOrder(const QString &orderId, const QString &intentId, const QString &method, int attempt)
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    setBusy(true);
    api->post(QStringLiteral("/api/v1/orders/%1/confirm").arg(orderId), QJsonObject{{QStringLiteral("payment_intent_id"), intentId}}, this,
              [this, orderId, intentId, method, attempt](const ApiReply &reply) {
                  // The money is taken: keep asking through network trouble (the confirm is idempotent on the intent).
                  if ((reply.kind == ApiErrorKind::Offline || reply.status == 503 || reply.code == QLatin1String("payment_pending"))
                      && attempt < kConfirmRetries) {
                      QTimer::singleShot(500 * (attempt + 1), this, [=, this] { confirmOrder(orderId, intentId, method, attempt + 1); });
                      return;
                  }
                  setBusy(false);
                  m_paymentState.clear();
                  Q_EMIT paymentChanged();
                  if (!reply.ok()) {
                      if (reply.code == QLatin1String("hold_lost"))
                          setMessage(tr("The seats were lost after payment; the payment is refunded automatically."), true);
                      else
                          fail(reply, tr("Confirming the sale"));
                      return;
                  }
                  completeSale(reply.object(), method);
              },
              ("confirm-" + orderId).toUtf8());
}

void TillController::completeSale(const QJsonObject &booking, const QString &method)
{
    const qint64 total = booking.value(QStringLiteral("amount_minor")).toInteger(m_totalMinor);
    // The cash part of the sale: all of it, the split's cash part, or none (card).
    const qint64 cashPart = method == QLatin1String("cash") ? total : method == QLatin1String("split") ? m_orderCashMinor : 0;
    const bool cash = cashPart > 0;
    const qint64 tendered = cash ? m_pendingTendered : total;
    const qint64 change = cash ? tendered - cashPart : 0;
    QJsonObject withIntent = booking;
    withIntent.insert(QStringLiteral("payment_intent_id"), m_intentId);
    const QString paidWith = method == QLatin1String("split")
                                 ? tr("Cash %1 + card %2").arg(formatMoney(cashPart, m_currency), formatMoney(total - cashPart, m_currency))
                                 : cash ? tr("Cash") : tr("Card");
    m_print = bookingPrintFor(m_show, withIntent, m_seatMap, paidWith);
    QStringList seats;
    for (const QJsonValue &seat : booking.value(QStringLiteral("seats")).toArray())
        seats.append(seat.toString());
    m_lastSale = {{QStringLiteral("booking_ref"), str(booking, "booking_ref")},
                  {QStringLiteral("booking_id"), str(booking, "booking_id")},
                  {QStringLiteral("seats"), seats.join(QStringLiteral(", "))},
                  {QStringLiteral("count"), seats.size()},
                  {QStringLiteral("title"), showTitle()},
                  {QStringLiteral("show"), showText()},
                  {QStringLiteral("total"), formatMoney(total, m_currency)},
                  {QStringLiteral("tendered"), formatMoney(tendered, m_currency)},
                  {QStringLiteral("change"), formatMoney(change, m_currency)},
                  {QStringLiteral("change_minor"), change},
                  {QStringLiteral("cash_part"), formatMoney(cashPart, m_currency)},
                  {QStringLiteral("cash_part_minor"), cashPart},
                  {QStringLiteral("card_part"), formatMoney(total - cashPart, m_currency)},
                  {QStringLiteral("card_part_minor"), total - cashPart},
                  {QStringLiteral("paid_with"), paidWith},
                  {QStringLiteral("method"), method}};
    // The booking owns the seats now: forget the hold without releasing it.
    m_customerContact.clear();
    m_holdId.clear();
    m_heldSeats.clear();
    m_holdTick.stop();
    m_seatMap->setOwnHold(false);
    m_seatMap->clearSelection();
    m_seatMap->refresh();
    Q_EMIT holdChanged();
    Q_EMIT saleChanged();
    refreshShift();
    print(m_print, cash);
    setScreen(QStringLiteral("done"));
    qCInfo(lcTill) << "sold" << seats << "for" << total << method << "booking" << m_lastSale.value(QStringLiteral("booking_ref")).toString();
}

bool TillController::sendEscPos(const QByteArray &bytes, QString *error)
{
    if (m_config.escposTarget.isEmpty())
        return true;
    if (!sendToPrinter(bytes, m_config.escposTarget, error))
        return false;
    Q_EMIT printerBytesSent(bytes);
    return true;
}

bool TillController::print(const BookingPrint &booking, bool kickDrawer)
{
    QDir().mkpath(printDir());
    const QString pdf = printDir() + QStringLiteral("/%1-%2.pdf").arg(booking.bookingRef, QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddHHmmsszzz")));
    QString error;
    bool ok = writePdf(booking, pdf, &error);
    // Cash: the drawer opens with the tickets (the pulse goes first so the change can be counted while they print).
    if (ok)
        ok = sendEscPos((kickDrawer ? drawerKickCommand() : QByteArray()) + escPosJob(booking), &error);
    m_lastPdfPath = ok ? pdf : m_lastPdfPath;
    m_printMessage = ok ? QString() : tr("The tickets did not print: %1 — the booking is safe; press P to print again.").arg(error);
    Q_EMIT printChanged();
    return ok;
}

void TillController::printAgain()
{
    KioskApi *api = m_session->api();
    const QString bookingId = m_lastSale.value(QStringLiteral("booking_id")).toString();
    if (m_lastSale.value(QStringLiteral("offline")).toBool()) {
        setMessage(tr("An offline sale prints again from Find booking once the server has booked it."), true);
        return;
    }
    if (!api || m_busy || bookingId.isEmpty() || m_print.tickets.isEmpty())
        return;
    // The first print may have come out (jammed, torn, or fine): a second copy of the same codes would admit twice,
    // so printing again is a reprint like the lookup screen's — and the tickets the customer may already hold stop
    // admitting. So it asks first, naming them.
    QStringList ticketIds;
    QStringList seats;
    for (const PrintedTicket &ticket : std::as_const(m_print.tickets)) {
        ticketIds.append(ticket.ticketId);
        seats.append(ticket.seatId);
    }
    if (m_reprintQuestion.isEmpty()) {
        m_reprintQuestion = tr("Print the %n ticket(s) for %1 again? The ones printed now stop admitting; the customer gets new ones. "
                               "P again to print, Esc to keep them.",
                               nullptr, int(seats.size()))
                                .arg(seats.join(QStringLiteral(", ")));
        Q_EMIT printChanged();
        return;
    }
    m_reprintQuestion.clear();
    Q_EMIT printChanged();
    setBusy(true);
    setMessage({});
    reissueTickets(bookingId, ticketIds, [this](const QJsonObject &booking) {
        setBusy(false);
        QJsonObject withIntent = booking;
        withIntent.insert(QStringLiteral("payment_intent_id"), m_print.paymentIntentId);
        m_print = bookingPrintFor(m_show, withIntent, m_seatMap, m_print.paymentMethod);
        if (print(m_print, false))
            setMessage(tr("%n ticket(s) reissued and printed again; the first codes no longer admit.", nullptr, int(m_print.tickets.size())));
        else
            setMessage(m_printMessage, true);
    });
}

void TillController::cancelReprint()
{
    if (m_reprintQuestion.isEmpty())
        return;
    m_reprintQuestion.clear();
    Q_EMIT printChanged();
}

void TillController::newSale()
{
    m_lastSale.clear();
    m_printMessage.clear();
    m_reprintQuestion.clear();
    Q_EMIT saleChanged();
    Q_EMIT printChanged();
    setMessage({});
    setScreen(QStringLiteral("sale"));
    if (!m_offline->offline())
        refreshShows(); // seats left changed
}

// ---------------------------------------------------------------- offline sale (TillOffline)

void TillController::holdOffline(const QStringList &seats)
{
    // No hold on the server: the seats are this till's by its lease, and the journal makes the sale durable.
    QString why;
    if (m_offline->leaseFor(currentShowId(), seats, &why).isEmpty()) {
        setMessage(why, true);
        return;
    }
    m_holdId = QStringLiteral("offline");
    m_heldSeats = seats;
    m_holdExpiresAt = QDateTime::currentDateTimeUtc().addSecs(kOfflineHoldSeconds);
    m_totalMinor = m_seatMap->selectedTotalMinor();
    m_orderAttempt = 0;
    m_orderId.clear();
    m_intentId.clear();
    m_seatMap->setOwnHold(true);
    onHoldTick();
    m_holdTick.start();
    setMessage(tr("Offline sale of leased seats: cash only."));
    Q_EMIT holdChanged();
    setScreen(QStringLiteral("tender"));
}

void TillController::payCashOffline(qint64 tenderedMinor)
{
    const TillOffline::Sale sale = m_offline->sellCash(m_show, m_heldSeats, tenderedMinor, m_session->name(), m_seatMap, tr("Cash (offline)"));
    if (!sale.ok) {
        setMessage(sale.message, true);
        return;
    }
    m_print = sale.print;
    const qint64 change = tenderedMinor - sale.amountMinor;
    m_lastSale = {{QStringLiteral("booking_ref"), sale.print.bookingRef},
                  {QStringLiteral("booking_id"), QString()},
                  {QStringLiteral("seats"), m_heldSeats.join(QStringLiteral(", "))},
                  {QStringLiteral("count"), m_heldSeats.size()},
                  {QStringLiteral("title"), showTitle()},
                  {QStringLiteral("show"), showText()},
                  {QStringLiteral("total"), formatMoney(sale.amountMinor, sale.currency)},
                  {QStringLiteral("tendered"), formatMoney(tenderedMinor, sale.currency)},
                  {QStringLiteral("change"), formatMoney(change, sale.currency)},
                  {QStringLiteral("change_minor"), change},
                  {QStringLiteral("cash_part"), formatMoney(sale.amountMinor, sale.currency)},
                  {QStringLiteral("cash_part_minor"), sale.amountMinor},
                  {QStringLiteral("card_part"), formatMoney(0, sale.currency)},
                  {QStringLiteral("card_part_minor"), 0},
                  {QStringLiteral("paid_with"), sale.print.paymentMethod},
                  {QStringLiteral("method"), QStringLiteral("cash")},
                  {QStringLiteral("offline"), true},
                  {QStringLiteral("device_seq"), sale.deviceSeq}};
    m_customerContact.clear();
    m_holdId.clear();
    m_heldSeats.clear();
    m_holdTick.stop();
    m_seatMap->setOwnHold(false);
    m_seatMap->clearSelection();
    setMessage({}); // the done screen says itself that the sale was made offline and when it is booked
    Q_EMIT holdChanged();
    Q_EMIT saleChanged();
    setScreen(QStringLiteral("done"));
    qCInfo(lcTill) << "sold offline" << m_lastSale.value(QStringLiteral("seats")).toString() << "for" << sale.amountMinor << "as sale" << sale.deviceSeq;
}

// ---------------------------------------------------------------- lookup, cancel, reprint, check-in

void TillController::openLookup()
{
    if (holdActive() || !m_session->signedIn())
        return;
    setMessage({});
    setScreen(QStringLiteral("lookup"));
}

void TillController::find(const QString &query)
{
    KioskApi *api = m_session->api();
    const QString text = query.trimmed();
    if (!api || text.isEmpty() || m_busy)
        return;
    if (text.startsWith(QLatin1String("MQ1."), Qt::CaseInsensitive) || text.startsWith(QLatin1String("MQ2."), Qt::CaseInsensitive)) {
        checkIn(text);
        return;
    }
    // A customer's e-mail, or a phone number (references are 8 letters and digits, so a longer number or one
    // written with +, spaces or dashes is a phone).
    const bool email = text.contains(QLatin1Char('@'));
    const bool phone = !email && normalizedCustomerPhone(text)
                       && (text.size() > 8 || text.contains(QRegularExpression(QStringLiteral("[^A-Za-z0-9]"))));
    setBusy(true);
    setMessage({});
    m_matches.clear();
    if (email || phone) {
        const QString path = QStringLiteral("/api/v1/customers/bookings?%1=%2")
                                 .arg(email ? QStringLiteral("email") : QStringLiteral("phone"), QString::fromLatin1(QUrl::toPercentEncoding(text)));
        api->get(path, this, [this, text](const ApiReply &reply) {
            if (!reply.ok()) {
                fail(reply, tr("Finding the customer's bookings"));
                return;
            }
            const QJsonArray rows = reply.object().value(QStringLiteral("bookings")).toArray();
            m_booking = {};
            m_bookingView.clear();
            if (rows.size() == 1) {
                openBooking(str(rows.first().toObject(), "booking_id"));
                return;
            }
            setBusy(false);
            for (const QJsonValue &value : rows) {
                const QJsonObject row = value.toObject();
                QStringList seats;
                for (const QJsonValue &seat : row.value(QStringLiteral("seats")).toArray())
                    seats.append(seat.toString());
                m_matches.append(QVariantMap{{QStringLiteral("booking_id"), str(row, "booking_id")},
                                             {QStringLiteral("booking_ref"), str(row, "booking_ref")},
                                             {QStringLiteral("label"), QStringLiteral("%1 · %2 · %3%4")
                                                                           .arg(str(row, "booking_ref"), seats.join(QLatin1Char(' ')),
                                                                                wireTimeText(str(row, "created_at"), tr("d MMM HH:mm", "date format")),
                                                                                str(row, "state") == QLatin1String("cancelled") ? tr(" · cancelled") : QString())}});
            }
            Q_EMIT bookingChanged();
            if (rows.isEmpty())
                setMessage(tr("No booking for %1.").arg(text), true);
            else
                setMessage(tr("%1 bookings for %2: choose one.").arg(rows.size()).arg(text));
        });
        return;
    }
    QUrlQuery params;
    params.addQueryItem(QStringLiteral("ref"), text.toUpper());
    api->get(QStringLiteral("/api/v1/bookings?") + params.toString(QUrl::FullyEncoded), this, [this, text](const ApiReply &reply) {
        if (reply.kind == ApiErrorKind::NotFound) {
            setBusy(false);
            m_booking = {};
            m_bookingView.clear();
            Q_EMIT bookingChanged();
            setMessage(tr("No booking %1.").arg(text.toUpper()), true);
            return;
        }
        if (!reply.ok()) {
            fail(reply, tr("Finding the booking"));
            return;
        }
        applyBooking(reply.object());
    });
}

void TillController::openBooking(const QString &bookingId)
{
    KioskApi *api = m_session->api();
    if (!api || bookingId.isEmpty())
        return;
    setBusy(true);
    api->get(QStringLiteral("/api/v1/bookings/%1").arg(bookingId), this, [this](const ApiReply &reply) {
        if (!reply.ok()) {
            fail(reply, tr("Opening the booking"));
            return;
        }
        applyBooking(reply.object());
    });
}

void TillController::setCustomerContact(const QString &contact)
{
    if (m_customerContact == contact)
        return;
    m_customerContact = contact;
    Q_EMIT holdChanged();
}

void TillController::applyBooking(const QJsonObject &booking)
{
    KioskApi *api = m_session->api();
    m_booking = booking;
    api->get(QStringLiteral("/api/v1/shows/%1").arg(str(booking, "show_id")), this, [this](const ApiReply &show) {
        setBusy(false);
        m_bookingShow = show.ok() ? show.object() : QJsonObject();
        QStringList seats;
        for (const QJsonValue &seat : m_booking.value(QStringLiteral("seats")).toArray())
            seats.append(seat.toString());
        const QString state = str(m_booking, "state");
        m_bookingView = {{QStringLiteral("booking_id"), str(m_booking, "booking_id")},
                         {QStringLiteral("booking_ref"), str(m_booking, "booking_ref")},
                         {QStringLiteral("state"), state},
                         {QStringLiteral("cancelled"), state == QLatin1String("cancelled")},
                         {QStringLiteral("seats"), seats.join(QStringLiteral(", "))},
                         {QStringLiteral("amount"), formatMoney(m_booking.value(QStringLiteral("amount_minor")).toInteger(), str(m_booking, "currency"))},
                         {QStringLiteral("title"), str(m_bookingShow, "title")},
                         {QStringLiteral("show"), wireTimeText(str(m_bookingShow, "starts_at"), tr("ddd d MMM HH:mm", "date format"), showZone(m_bookingShow)) + QStringLiteral(" · ")
                                                      + m_bookingShow.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")).toString()},
                         {QStringLiteral("created"), wireTimeText(str(m_booking, "created_at"), tr("d MMM HH:mm", "date format"))},
                         {QStringLiteral("tickets"), m_booking.value(QStringLiteral("tickets")).toArray().size()},
                         {QStringLiteral("cancel_reason"), str(m_booking, "cancel_reason")},
                         {QStringLiteral("needs_override"), false}};
        Q_EMIT bookingChanged();
    });
}

void TillController::cancelBooking(const QString &reason)
{
    if (m_booking.isEmpty() || m_bookingView.value(QStringLiteral("cancelled")).toBool())
        return;
    m_session->requireReauth(tr("Refund booking %1 (%2)").arg(str(m_booking, "booking_ref"), m_bookingView.value(QStringLiteral("amount")).toString()),
                             [this, reason] { cancelWith(m_session->api(), reason, {}); });
}

void TillController::overrideCancel(const QString &managerName, const QString &managerPassword, const QString &reason)
{
    if (m_booking.isEmpty())
        return;
    if (reason.trimmed().isEmpty()) {
        setMessage(tr("A refund outside the policy needs a reason."), true);
        return;
    }
    m_session->managerOverride(managerName, managerPassword, [this, reason](const QString &token, const QString &error) {
        if (token.isEmpty()) {
            setMessage(error, true);
            return;
        }
        KioskApi *managerApi = m_session->makeClient(token, this);
        cancelWith(managerApi, reason.trimmed(), token);
    });
}

void TillController::cancelWith(KioskApi *api, const QString &reason, const QString &overrideToken)
{
    if (!api)
        return;
    setBusy(true);
    QJsonObject body;
    if (!reason.trimmed().isEmpty())
        body.insert(QStringLiteral("reason"), reason.trimmed());
    const QString bookingId = str(m_booking, "booking_id");
    api->post(QStringLiteral("/api/v1/bookings/%1/cancel").arg(bookingId), body, this, [this, api, overrideToken](const ApiReply &reply) {
        if (!overrideToken.isEmpty()) {
            m_session->endOverride(overrideToken);
            api->deleteLater();
        }
        if (reply.code == QLatin1String("outside_cancel_policy")) {
            setBusy(false);
            m_bookingView.insert(QStringLiteral("needs_override"), true);
            Q_EMIT bookingChanged();
            setMessage(overrideToken.isEmpty() ? tr("This show is too close to refund at the till: a manager must authorise it, with a reason.")
                                               : tr("The refund was refused even with the override: %1").arg(reply.message),
                       true);
            return;
        }
        if (!reply.ok()) {
            // A manager's failed override must not sign the cashier out: only the till's own 401 does that.
            if (!overrideToken.isEmpty() && reply.status == 401) {
                setBusy(false);
                setMessage(tr("The manager's authorisation was not accepted."), true);
                return;
            }
            fail(reply, tr("Refunding"));
            return;
        }
        const QJsonObject result = reply.object();
        const QJsonObject refund = result.value(QStringLiteral("refund")).toObject();
        const qint64 amount = refund.value(QStringLiteral("amount_minor")).toInteger();
        const QString orderId = str(result, "order_id");
        refreshShift(); // the server books the refund on the right drawer
        // How much of the refund is cash to hand back: the server refunds a split order card part first.
        m_session->api()->get(QStringLiteral("/api/v1/orders/%1").arg(orderId), this, [this, amount, refund](const ApiReply &order) {
            // Another member's order may not be readable here; then the refund tells: cash is handed back at once
            // ("succeeded"), a card refund waits for the provider ("pending").
            qint64 cashBack = refund.value(QStringLiteral("status")).toString() == QLatin1String("succeeded") ? amount : 0;
            if (order.ok()) {
                const QJsonObject paid = order.object();
                const qint64 cardPart = paid.value(QStringLiteral("amount_minor")).toInteger() - paid.value(QStringLiteral("cash_minor")).toInteger();
                cashBack = qMax<qint64>(0, amount - cardPart);
            }
            QString error;
            if (cashBack > 0)
                sendEscPos(drawerKickCommand(), &error);
            setBusy(true);
            m_session->api()->get(QStringLiteral("/api/v1/bookings/%1").arg(str(m_booking, "booking_id")), this, [this, amount, cashBack, refund](const ApiReply &again) {
                if (again.ok())
                    applyBooking(again.object());
                else
                    setBusy(false);
                const QString currency = str(refund, "currency");
                if (cashBack == amount)
                    setMessage(tr("Cancelled. Hand back %1 in cash.").arg(formatMoney(amount, currency)));
                else if (cashBack == 0)
                    setMessage(tr("Cancelled. %1 goes back to the card (%2).").arg(formatMoney(amount, currency), str(refund, "status")));
                else
                    setMessage(tr("Cancelled. Hand back %1 in cash; %2 goes back to the card.")
                                   .arg(formatMoney(cashBack, currency), formatMoney(amount - cashBack, currency)));
            });
        });
    });
}

void TillController::reprintBooking()
{
    KioskApi *api = m_session->api();
    if (!api || m_busy || m_booking.isEmpty() || m_bookingView.value(QStringLiteral("cancelled")).toBool())
        return;
    // A reprint never hands out a second copy of a valid code: each ticket is reissued (the server revokes the
    // old code, signs a new one and audits it), then the booking is read again and its new codes are printed.
    QStringList ticketIds;
    for (const QJsonValue &ticket : m_booking.value(QStringLiteral("tickets")).toArray())
        ticketIds.append(str(ticket.toObject(), "ticket_id"));
    if (ticketIds.isEmpty())
        return;
    setBusy(true);
    setMessage({});
    reissueTickets(str(m_booking, "booking_id"), ticketIds, [this](const QJsonObject &reissued) {
        applyBooking(reissued);
        const BookingPrint booking = bookingPrintFor(m_bookingShow, m_booking, m_seatMap, tr("Reprint"));
        if (print(booking, false))
            setMessage(tr("%n ticket(s) of %1 reissued and printed; the old codes no longer admit.", nullptr, int(booking.tickets.size()))
                           .arg(booking.bookingRef));
        else
            setMessage(m_printMessage, true);
    });
}

void TillController::reissueTickets(const QString &bookingId, QStringList ticketIds, std::function<void(const QJsonObject &booking)> printNew)
{
    KioskApi *api = m_session->api();
    if (!api) {
        setBusy(false);
        return;
    }
    if (ticketIds.isEmpty()) {
        api->get(QStringLiteral("/api/v1/bookings/%1").arg(bookingId), this, [this, printNew](const ApiReply &reply) {
            if (!reply.ok()) {
                fail(reply, tr("Reading the reissued tickets"));
                return;
            }
            printNew(reply.object());
        });
        return;
    }
    const QString ticketId = ticketIds.takeFirst();
    api->post(QStringLiteral("/api/v1/tickets/%1/reissue").arg(ticketId), QJsonObject{{QStringLiteral("reason"), QStringLiteral("reprint at the box office")}},
              this, [this, bookingId, ticketIds, printNew](const ApiReply &reply) {
                  if (!reply.ok()) {
                      fail(reply, tr("Reissuing a ticket"));
                      return;
                  }
                  reissueTickets(bookingId, ticketIds, printNew);
              });
}

void TillController::checkIn(const QString &qr, bool anyShow)
{
    KioskApi *api = m_session->api();
    const QString code = qr.trimmed();
    if (!api || code.isEmpty())
        return;
    setBusy(true);
    QJsonObject body{{QStringLiteral("qr"), code},
                     {QStringLiteral("nonce"), QUuid::createUuid().toString(QUuid::WithoutBraces)},
                     {QStringLiteral("scanned_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
    if (!anyShow && currentShowId() > 0)
        body.insert(QStringLiteral("show_id"), currentShowId());
    api->post(QStringLiteral("/api/v1/checkin"), body, this, [this](const ApiReply &reply) {
        if (!reply.ok() && reply.code != QLatin1String("malformed_qr")) {
            fail(reply, tr("Checking in"));
            return;
        }
        setBusy(false);
        const QJsonObject object = reply.object();
        const QString result = reply.ok() ? str(object, "result") : QStringLiteral("malformed_qr");
        const QJsonObject ticket = object.value(QStringLiteral("ticket")).toObject();
        static const QHash<QString, const char *> texts = {
            {QStringLiteral("ok"), QT_TR_NOOP("Admitted")},
            {QStringLiteral("already_redeemed"), QT_TR_NOOP("Already used")},
            {QStringLiteral("revoked"), QT_TR_NOOP("Cancelled or replaced ticket")},
            {QStringLiteral("invalid_signature"), QT_TR_NOOP("Not a genuine ticket")},
            {QStringLiteral("unknown_key"), QT_TR_NOOP("Not a genuine ticket")},
            {QStringLiteral("wrong_show"), QT_TR_NOOP("Ticket for another show")},
            {QStringLiteral("not_yet_valid"), QT_TR_NOOP("Too early: doors open 3 hours before")},
            {QStringLiteral("expired"), QT_TR_NOOP("The show is over")},
            {QStringLiteral("malformed_qr"), QT_TR_NOOP("Not a ticket code")},
        };
        m_checkin = {{QStringLiteral("result"), result},
                     {QStringLiteral("ok"), result == QLatin1String("ok")},
                     {QStringLiteral("text"), tr(texts.value(result, QT_TR_NOOP("Refused")))},
                     {QStringLiteral("seat"), str(ticket, "seat_id")},
                     {QStringLiteral("show"), ticket.isEmpty() ? QString()
                                                               : wireTimeText(str(ticket, "starts_at"), QStringLiteral("ddd HH:mm")) + QStringLiteral(" · ")
                                                                     + str(ticket, "screen")},
                     {QStringLiteral("first_scanned"), wireTimeText(str(object, "first_scanned_at"))}};
        Q_EMIT checkinChanged();
        setScreen(QStringLiteral("lookup"));
    });
}

// ---------------------------------------------------------------- shift and drawer

namespace {
/** @brief A server Z-report (docs/api.md, *The Z-report*) as the text the shift screen and the printout show. */
QVariantMap zReportView(const QJsonObject &report)
{
    if (report.isEmpty())
        return {};
    const QString currency = str(report, "currency");
    const auto minor = [&report](const char *section, const char *key) {
        return report.value(QLatin1String(section)).toObject().value(QLatin1String(key)).toInteger();
    };
    const auto money = [&currency](qint64 amount) { return formatMoney(amount, currency); };
    const QJsonObject sales = report.value(QStringLiteral("sales")).toObject();
    const QJsonObject refunds = report.value(QStringLiteral("refunds")).toObject();
    const QJsonObject byMethod = sales.value(QStringLiteral("by_method")).toObject();
    const qint64 cashRefunds = refunds.value(QStringLiteral("cash_minor")).toInteger();
    const qint64 expected = report.value(QStringLiteral("expected_cash_minor")).toInteger();
    QVariantMap view{{QStringLiteral("open"), str(report, "state") == QLatin1String("open")},
                     {QStringLiteral("shift_id"), report.value(QStringLiteral("shift_id")).toInteger()},
                     {QStringLiteral("staff"), report.value(QStringLiteral("cashier")).toObject().value(QStringLiteral("name")).toString()},
                     {QStringLiteral("opened_at"), wireTimeText(str(report, "opened_at"), QStringLiteral("HH:mm"))},
                     {QStringLiteral("opened_on"), wireTimeText(str(report, "opened_at"), TillController::tr("d MMM yyyy HH:mm", "date format"))},
                     // The till the shift ran on (named when it was opened, or by the till's own sign-in).
                     {QStringLiteral("device"), str(report, "device_name").isEmpty() ? TillController::tr("not named") : str(report, "device_name")},
                     {QStringLiteral("float"), money(report.value(QStringLiteral("opening_float_minor")).toInteger())},
                     {QStringLiteral("cash_sales"), money(byMethod.value(QStringLiteral("cash_minor")).toInteger())},
                     {QStringLiteral("card_sales"), money(byMethod.value(QStringLiteral("card_minor")).toInteger())},
                     {QStringLiteral("total_sales"), money(sales.value(QStringLiteral("total_minor")).toInteger())},
                     {QStringLiteral("total_sales_minor"), sales.value(QStringLiteral("total_minor")).toInteger()},
                     {QStringLiteral("change_given"), money(sales.value(QStringLiteral("change_given_minor")).toInteger())},
                     {QStringLiteral("cash_refunds"), money(cashRefunds)},
                     {QStringLiteral("card_refunds"), money(refunds.value(QStringLiteral("total_minor")).toInteger() - cashRefunds)},
                     {QStringLiteral("cash_in"), money(minor("drawer", "cash_in_minor"))},
                     {QStringLiteral("cash_out"), money(minor("drawer", "cash_out_minor"))},
                     {QStringLiteral("no_sale_count"), int(minor("drawer", "no_sale_count"))},
                     {QStringLiteral("sales_count"), int(sales.value(QStringLiteral("count")).toInteger())},
                     {QStringLiteral("split_count"), int(sales.value(QStringLiteral("split_count")).toInteger())},
                     {QStringLiteral("refund_count"), int(refunds.value(QStringLiteral("count")).toInteger())},
                     {QStringLiteral("void_count"), int(minor("voids", "count"))},
                     {QStringLiteral("expected_cash"), money(expected)},
                     {QStringLiteral("expected_cash_minor"), expected}};
    if (report.value(QStringLiteral("counted_cash_minor")).isDouble()) {
        const qint64 difference = report.value(QStringLiteral("over_short_minor")).toInteger();
        view.insert(QStringLiteral("closed_at"), wireTimeText(str(report, "closed_at"), TillController::tr("d MMM yyyy HH:mm", "date format")));
        view.insert(QStringLiteral("counted"), money(report.value(QStringLiteral("counted_cash_minor")).toInteger()));
        view.insert(QStringLiteral("over_short"), (difference > 0 ? QStringLiteral("+") : QString()) + money(difference));
        view.insert(QStringLiteral("over_short_minor"), difference);
    }
    return view;
}
} // namespace

QVariantMap TillController::shift() const
{
    return zReportView(m_shiftReport);
}

void TillController::refreshShift()
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    api->get(QStringLiteral("/api/v1/shifts/current"), this, [this](const ApiReply &reply) {
        if (reply.ok())
            m_shiftReport = reply.object();
        else if (reply.kind == ApiErrorKind::NotFound)
            m_shiftReport = {};
        else if (m_session->handleUnauthorized(reply))
            return; // locked by the server (the lock screen shows) or ended (signed out)
        else
            return; // offline: keep what is shown; the next sale or screen asks again
        Q_EMIT shiftChanged();
    });
}

void TillController::openShiftScreen()
{
    if (holdActive() || !m_session->signedIn())
        return;
    setMessage({});
    setScreen(QStringLiteral("shift"));
    refreshShift();
}

void TillController::openShift(const QString &floatText)
{
    KioskApi *api = m_session->api();
    if (!api || shiftOpen() || m_busy)
        return;
    const std::optional<qint64> amount = parseMoneyInput(floatText, drawerCurrency());
    if (!amount) {
        setMessage(tr("Enter the opening float, for example 150.00."), true);
        return;
    }
    // The drawer opens for the float: a drawer operation, so the password again first (the pulse comes from this
    // till, so this is where it is guarded).
    m_session->requireReauth(tr("Open the shift with %1 in the drawer").arg(formatMoney(*amount, drawerCurrency())),
                             [this, amount] { startShift(*amount); });
}

void TillController::startShift(qint64 floatMinor)
{
    KioskApi *api = m_session->api();
    if (!api || shiftOpen())
        return;
    setBusy(true);
    const QJsonObject body{{QStringLiteral("opening_float_minor"), floatMinor},
                           {QStringLiteral("currency"), drawerCurrency()}};
    api->post(QStringLiteral("/api/v1/shifts"), body, this, [this](const ApiReply &reply) {
        if (reply.code == QLatin1String("shift_already_open")) {
            // Opened on another till or before a restart: carry on with that shift.
            setBusy(false);
            m_shiftReport = reply.object().value(QStringLiteral("shift")).toObject();
            Q_EMIT shiftChanged();
            setMessage(tr("You already had a shift open since %1; it carries on.").arg(shift().value(QStringLiteral("opened_at")).toString()));
            return;
        }
        if (!reply.ok()) {
            fail(reply, tr("Opening the shift"));
            return;
        }
        setBusy(false);
        m_shiftReport = reply.object();
        m_zReport.clear();
        QString error;
        sendEscPos(drawerKickCommand(), &error);
        setMessage(tr("Shift open. Put the float in the drawer."));
        Q_EMIT shiftChanged();
    });
}

void TillController::closeShift(const QString &countedText)
{
    if (!shiftOpen())
        return;
    if (QString why; !m_offline->mayCloseShift(m_session->name(), &why)) {
        setMessage(why, true); // offline sales not on the server's shift yet
        return;
    }
    const std::optional<qint64> counted = parseMoneyInput(countedText, str(m_shiftReport, "currency"));
    if (!counted) {
        setMessage(tr("Enter the cash counted in the drawer."), true);
        return;
    }
    m_session->requireReauth(tr("Close the shift and print the Z-report"), [this, counted] {
        KioskApi *api = m_session->api();
        if (!api)
            return;
        setBusy(true);
        api->post(QStringLiteral("/api/v1/shifts/current/close"), QJsonObject{{QStringLiteral("counted_cash_minor"), *counted}}, this,
                  [this](const ApiReply &reply) {
                      if (!reply.ok()) {
                          fail(reply, tr("Closing the shift"));
                          if (reply.kind == ApiErrorKind::NotFound)
                              refreshShift();
                          return;
                      }
                      setBusy(false);
                      m_shiftReport = {};
                      m_zReport = zReportView(reply.object());
                      Q_EMIT shiftChanged();
                      printZReport();
                      const qint64 difference = m_zReport.value(QStringLiteral("over_short_minor")).toLongLong();
                      const QString currency = str(reply.object(), "currency");
                      setMessage(difference == 0 ? tr("Shift closed. The drawer is exact.")
                                                 : tr("Shift closed. The drawer is %1 %2.")
                                                       .arg(formatMoney(qAbs(difference), currency), difference > 0 ? tr("over") : tr("short")),
                                 difference != 0);
                  });
    });
}

namespace {
/** @brief How tall the slip is for @p lineCount lines at @p width: the proportions paintZReport draws with. */
qreal zReportHeight(qreal width, qsizetype lineCount)
{
    return width / 16 + 2 * (width / 12) + lineCount * (width / 22) * 1.6 + width / 16;
}

/** @brief The Z-report on any paint device: the lines of the report, right-aligned amounts. */
void paintZReport(QPainter &painter, const QRectF &area, const QVariantMap &report)
{
    const QList<QPair<QString, QString>> lines = TillController::zReportSlipLines(report);
    painter.fillRect(area, Qt::white);
    painter.setPen(Qt::black);
    QFont title(QStringLiteral("DejaVu Sans"));
    title.setPixelSize(int(area.width() / 12));
    title.setBold(true);
    painter.setFont(title);
    const qreal margin = area.width() / 16;
    qreal y = area.top() + margin;
    painter.drawText(QRectF(area.left(), y, area.width(), title.pixelSize() * 1.5), Qt::AlignHCenter, TillController::tr("Z-REPORT"));
    y += title.pixelSize() * 2;
    QFont body(QStringLiteral("DejaVu Sans"));
    body.setPixelSize(int(area.width() / 22));
    painter.setFont(body);
    const qreal line = body.pixelSize() * 1.6;
    for (const auto &[label, value] : lines) {
        if (!label.isEmpty()) {
            painter.drawText(QRectF(area.left() + margin, y, area.width() - 2 * margin, line), Qt::AlignLeft | Qt::AlignVCenter, label);
            painter.drawText(QRectF(area.left() + margin, y, area.width() - 2 * margin, line), Qt::AlignRight | Qt::AlignVCenter, value);
        } else {
            painter.drawLine(QPointF(area.left() + margin, y + line / 2), QPointF(area.right() - margin, y + line / 2));
        }
        y += line;
    }
}
} // namespace

QList<QPair<QString, QString>> TillController::zReportSlipLines(const QVariantMap &report)
{
    return {
        {tr("Till"), report.value(QStringLiteral("device")).toString()},
        {tr("Shift"), QStringLiteral("#%1").arg(report.value(QStringLiteral("shift_id")).toLongLong())},
        {tr("Opened by"), report.value(QStringLiteral("staff")).toString()},
        {tr("Opened"), report.value(QStringLiteral("opened_on")).toString()},
        {tr("Closed"), report.value(QStringLiteral("closed_at")).toString()},
        {QString(), QString()},
        {tr("Sales"), QString::number(report.value(QStringLiteral("sales_count")).toInt())},
        {tr("Cash sales"), report.value(QStringLiteral("cash_sales")).toString()},
        {tr("Card sales"), report.value(QStringLiteral("card_sales")).toString()},
        {tr("Total sales"), report.value(QStringLiteral("total_sales")).toString()},
        {tr("Refunds"), QString::number(report.value(QStringLiteral("refund_count")).toInt())},
        {tr("Cash refunds"), report.value(QStringLiteral("cash_refunds")).toString()},
        {tr("Card refunds"), report.value(QStringLiteral("card_refunds")).toString()},
        {tr("Voids"), QString::number(report.value(QStringLiteral("void_count")).toInt())},
        {QString(), QString()},
        {tr("Opening float"), report.value(QStringLiteral("float")).toString()},
        {tr("Cash in"), report.value(QStringLiteral("cash_in")).toString()},
        {tr("Cash out"), report.value(QStringLiteral("cash_out")).toString()},
        {tr("Expected cash"), report.value(QStringLiteral("expected_cash")).toString()},
        {tr("Counted cash"), report.value(QStringLiteral("counted")).toString()},
        {tr("Over / short"), report.value(QStringLiteral("over_short")).toString()},
    };
}

void TillController::printZReport()
{
    if (m_zReport.isEmpty())
        return;
    QDir().mkpath(printDir());
    const QString pdf = printDir() + QStringLiteral("/z-report-%1.pdf").arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddHHmmss")));
    // As long as its lines need (80 mm paper), so a longer report is never cut off at the bottom.
    const qsizetype lineCount = zReportSlipLines(m_zReport).size();
    QPdfWriter writer(pdf);
    writer.setPageSize(QPageSize(QSizeF(80, std::ceil(zReportHeight(80, lineCount))), QPageSize::Millimeter));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(203);
    QString error;
    bool ok = false;
    {
        QPainter painter;
        if (painter.begin(&writer)) {
            paintZReport(painter, QRectF(0, 0, writer.width(), writer.height()), m_zReport);
            ok = painter.end();
        }
    }
    if (ok && !m_config.escposTarget.isEmpty()) {
        QImage image(576, int(std::ceil(zReportHeight(576, lineCount))), QImage::Format_RGB32);
        QPainter painter(&image);
        paintZReport(painter, QRectF(0, 0, image.width(), image.height()), m_zReport);
        painter.end();
        ok = sendEscPos(escPosRaster(image) + QByteArray("\x1d\x56\x42\x00", 4), &error);
    }
    m_zReport.insert(QStringLiteral("pdf"), ok ? pdf : QString());
    m_lastPdfPath = ok ? pdf : m_lastPdfPath;
    m_printMessage = ok ? QString() : tr("The Z-report did not print: %1").arg(error.isEmpty() ? tr("the PDF could not be written") : error);
    Q_EMIT printChanged();
    Q_EMIT shiftChanged();
}

void TillController::openDrawer()
{
    if (!m_session->signedIn())
        return;
    if (!shiftOpen()) {
        setMessage(tr("Open a shift first: every drawer opening is recorded on the shift."), true);
        return;
    }
    m_session->requireReauth(tr("Open the cash drawer (no sale)"),
                             [this] { drawerOperation(QStringLiteral("no_sale"), 0, tr("no sale"), tr("Drawer opened.")); });
}

QStringList TillController::cashSuggestions() const
{
    QStringList texts;
    for (const qint64 minor : cashSuggestionsMinor(m_totalMinor, currencyExponent(m_currency)))
        texts.append(Money{minor, m_currency}.toDecimalString());
    return texts;
}

void TillController::moveCash(bool cashIn, const QString &amountText, const QString &reason)
{
    if (!shiftOpen())
        return;
    const std::optional<qint64> amount = parseMoneyInput(amountText, str(m_shiftReport, "currency"));
    if (!amount || *amount <= 0) {
        setMessage(tr("Enter the amount, for example 50.00."), true);
        return;
    }
    if (reason.trimmed().isEmpty()) {
        setMessage(tr("Say why the cash goes %1 the drawer.").arg(cashIn ? tr("into") : tr("out of")), true);
        return;
    }
    const QString money = formatMoney(*amount, str(m_shiftReport, "currency"));
    const QString what = cashIn ? tr("Put %1 into the drawer").arg(money) : tr("Take %1 out of the drawer").arg(money);
    m_session->requireReauth(what, [this, cashIn, amount, reason, money] {
        drawerOperation(cashIn ? QStringLiteral("cash_in") : QStringLiteral("cash_out"), *amount, reason.trimmed(),
                        cashIn ? tr("%1 put into the drawer.").arg(money) : tr("%1 taken out of the drawer.").arg(money));
    });
}

void TillController::drawerOperation(const QString &kind, qint64 amountMinor, const QString &reason, const QString &done)
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    QJsonObject body{{QStringLiteral("kind"), kind}, {QStringLiteral("reason"), reason}};
    if (amountMinor > 0)
        body.insert(QStringLiteral("amount_minor"), amountMinor);
    setBusy(true);
    api->post(QStringLiteral("/api/v1/shifts/current/drawer"), body, this, [this, done](const ApiReply &reply) {
        if (!reply.ok()) {
            fail(reply, tr("The drawer"));
            return;
        }
        setBusy(false);
        m_shiftReport = reply.object().value(QStringLiteral("shift")).toObject();
        Q_EMIT shiftChanged();
        // Recorded on the shift; now the drawer itself opens.
        QString error;
        if (m_config.escposTarget.isEmpty())
            setMessage(done + QLatin1Char(' ') + tr("No receipt printer is configured, so open the drawer by hand (--escpos)."));
        else if (sendEscPos(drawerKickCommand(), &error))
            setMessage(done);
        else
            setMessage(tr("%1 The drawer did not open: %2").arg(done, error), true);
    });
}

void TillController::onSessionEnded()
{
    if (m_terminal && m_terminal->busy())
        m_terminal->abort();
    // The session's token is gone, so the hold cannot be released by us any more; it lapses on its own.
    m_holdId.clear();
    m_heldSeats.clear();
    m_holdTick.stop();
    m_seatMap->clear();
    m_show = {};
    m_currentShow = -1;
    m_paymentState.clear();
    m_booking = {};
    m_bookingView.clear();
    m_checkin.clear();
    m_lastSale.clear();
    m_shiftReport = {}; // the shift stays open on the server; the next member's sign-in reads their own
    m_zReport.clear();
    Q_EMIT shiftChanged();
    Q_EMIT holdChanged();
    Q_EMIT showChanged();
    Q_EMIT paymentChanged();
    Q_EMIT bookingChanged();
    Q_EMIT checkinChanged();
    Q_EMIT saleChanged();
    setBusy(false);
    setMessage({});
    setScreen(QStringLiteral("signin"));
}

} // namespace marquee::app
