"""Web-page boilerplate for the generator: menus, cookie notices, footers, related links.

Written for this project (not taken from any site). Each "skin" is one imaginary site's
furniture; a page wrapped in a skin gets a header from its menu lines and a footer from its
footer lines, as a scraper that keeps the whole page would see it. Two different stories in
the same skin share the boilerplate and nothing else — a hard negative.
"""

from __future__ import annotations

SKINS: dict[str, list[dict[str, list[str]]]] = {
    "ru": [
        {
            "header": [
                "Главная | Новости | Политика | Экономика | Общество | Спорт | Культура",
                "Войти | Регистрация | Подписаться на рассылку",
                "Москва, погода: облачно, без существенных осадков",
                "Курсы валют ЦБ на завтра | Афиша | Телепрограмма",
            ],
            "footer": [
                "Мы используем файлы cookie, чтобы сайт работал лучше. Продолжая пользоваться "
                "сайтом, вы соглашаетесь с этим.",
                "Читайте также:",
                "Подписывайтесь на наш канал, чтобы первыми узнавать о главных событиях дня.",
                "Все права защищены. Перепечатка материалов допускается только со ссылкой на "
                "источник.",
                "Редакция не несет ответственности за содержание комментариев читателей.",
                "Нашли ошибку? Выделите фрагмент текста и нажмите Ctrl+Enter.",
                "Реклама на сайте | Контакты редакции | Политика конфиденциальности",
                "Сетевое издание зарегистрировано в установленном порядке. Возрастная маркировка "
                "16+.",
            ],
        },
        {
            "header": [
                "Лента | Мир | Россия | Бизнес | Технологии | Наука | Путешествия | Мнения",
                "Поиск по сайту | Архив номеров | Спецпроекты",
                "Самое читаемое за неделю",
            ],
            "footer": [
                "Этот сайт использует куки и сервисы веб-аналитики. Нажмите «Принять», если вы "
                "согласны.",
                "Другие материалы рубрики",
                "Оцените материал: полезно | неполезно",
                "Поделиться: ВКонтакте | Одноклассники | Телеграм | Скопировать ссылку",
                "Главный редактор, адрес редакции и телефон указаны на странице «О проекте».",
                "Использование материалов сайта без письменного разрешения правообладателя "
                "запрещено.",
                "Мобильное приложение для смартфонов: скачайте и читайте новости без рекламы.",
            ],
        },
        {
            "header": [
                "Меню | Главное | Регионы | Происшествия | Авто | Недвижимость | Здоровье",
                "Прямой эфир | Видео | Фото | Подкасты",
            ],
            "footer": [
                "Продолжая просмотр, вы даете согласие на обработку персональных данных и файлов "
                "cookie.",
                "Новости партнеров",
                "Загрузка комментариев... Чтобы оставить комментарий, войдите на сайт.",
                "Свидетельство о регистрации средства массовой информации выдано федеральной "
                "службой.",
                "Вакансии | Реклама | Обратная связь | Карта сайта",
                "Материалы с пометкой «Реклама» публикуются на правах рекламы.",
            ],
        },
    ],
    "en": [
        {
            "header": [
                "Home | World | Business | Markets | Politics | Technology | Sports | Opinion",
                "Sign in | Subscribe | Newsletters",
                "Today's weather: partly cloudy, high of 61",
                "Breaking news alerts | Podcasts | Video",
            ],
            "footer": [
                "We use cookies to improve your experience on our website. By continuing to browse "
                "you agree to our use of cookies.",
                "Read more:",
                "Sign up for our daily newsletter to get the top stories in your inbox.",
                "All rights reserved. This material may not be published, broadcast, rewritten or "
                "redistributed.",
                "Advertise with us | Contact the newsroom | Privacy policy | Terms of use",
                "Spotted a mistake? Let us know through the corrections form.",
                "Follow us on social media for the latest updates.",
            ],
        },
        {
            "header": [
                "Latest | Economy | Companies | Energy | Commodities | Currencies | Analysis",
                "Search the archive | Special reports | Events",
                "Most read this week",
            ],
            "footer": [
                "This site uses cookies and analytics services. Click Accept if you agree.",
                "More from this section",
                "Was this article helpful? Yes | No",
                "Share: email | print | copy link",
                "The editor in chief and the newsroom address are listed on the About page.",
                "Reproduction without written permission of the publisher is prohibited.",
            ],
        },
        {
            "header": [
                "Menu | Top stories | Local | Crime | Autos | Real estate | Health",
                "Live | Photos | Watch",
            ],
            "footer": [
                "By continuing you consent to the processing of personal data and cookies.",
                "Sponsored content from our partners",
                "Loading comments... Log in to join the conversation.",
                "Careers | Advertising | Feedback | Site map",
                "Content marked Advertisement is paid for by an advertiser.",
            ],
        },
    ],
}
